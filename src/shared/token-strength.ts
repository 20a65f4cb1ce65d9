/**
 * The shortest bearer token docket accepts from the environment: 22 characters, about 128 bits
 * of base64url. `docket token` makes 43-character ones.
 *
 * @example
 * ```ts
 * declare const token: string;
 * if (token.length < MIN_TOKEN_CHARS) throw new Error("too short");
 * ```
 */
export const MIN_TOKEN_CHARS = 22;
