/** Which arguments a `when` expression reads: top-level keys, or `all` when that cannot be told. */
export type WhenReads = readonly string[] | "all";

interface Node {
  readonly op: string;
  readonly args: unknown;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && "op" in value && "args" in value;
}

function isArgs(value: unknown): boolean {
  return isNode(value) && value.op === "id" && value.args === "args";
}

/**
 * The top-level argument keys a parsed CEL expression reads: `args.amount` and `args["amount"]`
 * read `amount`; any other use of `args` (`size(args)`, `args[principal]`, a macro variable that
 * shadows it) reads `all`. A session grant binds the values of what the rule's condition reads, so
 * it can never cover a call the condition would judge differently.
 *
 * @example
 * ```ts
 * declare const environment: import("@marcbachmann/cel-js").Environment; // the rules' CEL environment
 * whenReads(environment.parse("args.amount > 150 && args.currency == 'USD'").ast); // ["amount", "currency"]
 * whenReads(environment.parse("size(args) > 2").ast); // "all"
 * ```
 */
export function whenReads(ast: unknown): WhenReads {
  const keys = new Set<string>();
  let all = false;
  const visit = (value: unknown): void => {
    if (all) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!isNode(value)) return;
    const operands = value.args;
    if (value.op === "id") {
      if (operands === "args") all = true;
      return;
    }
    if (Array.isArray(operands) && isArgs(operands[0])) {
      const key = operands[1];
      if ((value.op === "." || value.op === ".?") && typeof key === "string") {
        keys.add(key);
        return;
      }
      if (
        (value.op === "[]" || value.op === "[?]") &&
        isNode(key) &&
        key.op === "value" &&
        typeof key.args === "string"
      ) {
        keys.add(key.args);
        return;
      }
    }
    visit(operands);
  };
  visit(ast);
  return all ? "all" : [...keys].sort();
}
