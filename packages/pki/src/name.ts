// Distinguished names laid out as Go's crypto/x509 (and so cfssl and kubeadm) lays them out: one RDN per
// attribute type in the order C, ST, L, O, OU, CN, several values of one type sharing their RDN. Kubernetes
// reads a client certificate's CN as the user name and each O as a group.
import { Name, type JsonName } from './x509.ts';

export interface DistinguishedName {
  CN?: string;
  O?: readonly string[];
  OU?: readonly string[];
  C?: readonly string[];
  ST?: readonly string[];
  L?: readonly string[];
}

const ORDER = ['C', 'ST', 'L', 'O', 'OU'] as const;

export function toName(dn: DistinguishedName): Name {
  const rdns: JsonName = [];
  for (const k of ORDER) {
    const values = dn[k]?.filter((v) => v !== '');
    if (values?.length) rdns.push({ [k]: [...values] });
  }
  if (dn.CN) rdns.push({ CN: [dn.CN] });
  return new Name(rdns);
}

export function fromName(name: Name): DistinguishedName {
  const dn: DistinguishedName = {};
  const cn = name.getField('CN')[0];
  if (cn !== undefined) dn.CN = cn;
  for (const k of ORDER) {
    const values = name.getField(k);
    if (values.length) dn[k] = values;
  }
  return dn;
}
