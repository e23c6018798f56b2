/** The bundle's path if it is there and newer than all its inputs, else undefined. */
export function freshBundle(pkgDir: string, bin: string): string | undefined;
/** Runs bin `bin` of the package whose bin/ stub is `stubUrl` (the stub's import.meta.url). */
export function launch(stubUrl: string, bin: string): Promise<void>;
