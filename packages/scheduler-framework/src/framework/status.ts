// The result of running a plugin. Plugins return a Status (or null for success, as Go returns a nil *Status)
// instead of throwing; the reasons are the strings that end up in FailedScheduling events.

export const Code = {
  Success: 0,
  Error: 1,
  Unschedulable: 2,
  UnschedulableAndUnresolvable: 3,
  Wait: 4,
  Skip: 5,
  Pending: 6,
} as const;
export type Code = (typeof Code)[keyof typeof Code];

const CODE_NAMES = ['Success', 'Error', 'Unschedulable', 'UnschedulableAndUnresolvable', 'Wait', 'Skip', 'Pending'];

export class Status {
  plugin = '';
  constructor(
    readonly code: Code,
    readonly reasons: readonly string[] = [],
    readonly error?: Error,
  ) {}

  static unschedulable(...reasons: string[]): Status {
    return new Status(Code.Unschedulable, reasons);
  }
  static unresolvable(...reasons: string[]): Status {
    return new Status(Code.UnschedulableAndUnresolvable, reasons);
  }
  static error(err: unknown): Status {
    const e = err instanceof Error ? err : new Error(String(err));
    return new Status(Code.Error, [e.message], e);
  }
  static skip(): Status {
    return new Status(Code.Skip);
  }

  withPlugin(name: string): this {
    this.plugin = name;
    return this;
  }
  isSuccess(): boolean {
    return this.code === Code.Success;
  }
  isSkip(): boolean {
    return this.code === Code.Skip;
  }
  /** Unschedulable or UnschedulableAndUnresolvable. */
  isRejected(): boolean {
    return this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable;
  }
  message(): string {
    return this.reasons.join(', ');
  }
  codeName(): string {
    return CODE_NAMES[this.code] ?? String(this.code);
  }
}

/** A null status means success. */
export type MaybeStatus = Status | null;

export function isSuccess(s: MaybeStatus): boolean {
  return s === null || s.code === Code.Success;
}
