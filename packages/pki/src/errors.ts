// Every refusal of this package is a PkiError whose message names the file or the field at fault.
export class PkiError extends Error {
  override name = 'PkiError';
}
