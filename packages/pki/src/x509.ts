// The one door to @peculiar/x509, chosen because it is maintained, typed, builds and parses certificates, CSRs
// and extensions on the platform's WebCrypto (Node's globalThis.crypto, so no native module and no shell-out to
// openssl), and reads what Go's crypto/x509 (cfssl, kubeadm) writes. Its dependency injection needs a Reflect
// polyfill loaded first; importing the library only through this file keeps that order.
import 'reflect-metadata';

export * from '@peculiar/x509';
