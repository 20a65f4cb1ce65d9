import fc from "fast-check";

/**
 * Any value a field of an event, an outcome or a result could hold, JSON or not: hostile
 * strings (escapes, NUL, lone surrogates), numbers JSON writes its own way (`-0`, NaN, the
 * infinities), what JSON leaves out (undefined, functions, symbols), nested JSON, and objects
 * with a `toJSON` (which JSON.stringify calls with the member's key). For the properties that
 * compare docket's hand-written serialisers with `canonicalJson` and `JSON.stringify`.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(jsonFieldValue, (value) => expect(mine(value)).toBe(JSON.stringify(value))));
 * ```
 */
export const jsonFieldValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom('"', "\\", "\u0000", "\ud800", "\udc00x", "😀", "\u2028", "a\nb", "a\tb"),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(-0),
  fc.jsonValue(),
  fc.anything({ withNullPrototype: true, withDate: true, withBoxedValues: true }),
  fc.constant({ toJSON: () => undefined }),
  fc.constant({ toJSON: () => ({ b: 1, a: 2 }) }),
  fc.constant({ toJSON: (key: string) => `key ${key}` }),
  fc.constant(() => 1),
  fc.constant(Symbol("s")),
);

/**
 * Mostly strings, numbers, booleans and absent fields, now and then anything: so that a
 * serialiser with a fast path for primitive fields takes it often, and leaves it now and then.
 *
 * @example
 * ```ts
 * fc.tuple(...keys.map(() => mostlyPrimitive));
 * ```
 */
export const mostlyPrimitive: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(undefined)),
  },
  { weight: 1, arbitrary: jsonFieldValue },
);
