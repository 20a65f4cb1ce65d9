/**
 * Thrown by a built-in handler when it will not (or cannot) do what was asked: a path outside
 * the workspace, a binary file, a blocked address, a string that is not unique. The checkpoint
 * turns the throw into a failed tool result carrying `message`, so the message is written for
 * the model: it says in words what was refused and why, and where possible what to do instead.
 *
 * `code` is stable and machine-readable (`outside_workspace`, `binary_file`, `blocked_address`,
 * `not_found`, …) for audit and tests; the model only ever needs the message.
 *
 * @example
 * ```ts
 * throw new BuiltinRefusal("binary_file", "Refused to read 'logo.png': it is a binary file.");
 * ```
 */
export class BuiltinRefusal extends Error {
  /** Stable machine-readable reason, e.g. `outside_workspace`. */
  readonly code: string;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BuiltinRefusal";
    this.code = code;
  }
}

/**
 * Narrow an unknown value to a `BuiltinRefusal`, optionally with a given code.
 *
 * @example
 * ```ts
 * declare const error: unknown; // what a handler threw
 * declare const report: (message: string) => void;
 * if (isBuiltinRefusal(error, "outside_workspace")) report(error.message);
 * ```
 */
export function isBuiltinRefusal(value: unknown, code?: string): value is BuiltinRefusal {
  return value instanceof BuiltinRefusal && (code === undefined || value.code === code);
}
