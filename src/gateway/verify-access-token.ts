import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from "jose";
import type { AuthOutcome } from "./gateway-auth-outcome.js";
import { isUsablePrincipalId } from "./gateway-principal.js";
import { cacheVerifiedTokens } from "./verified-token-cache.js";

/** How the gateway validates bearer JWTs (docket.yaml `gateway.auth`). */
export interface AccessTokenOptions {
  /** The authorization server's issuer identifier: the token's `iss` must equal it. */
  readonly issuer: string;
  /** The token's `aud` must contain it: this gateway's resource URL. */
  readonly audience: string;
  /** Where the signing keys are. Default: `jwks_uri` from the issuer's metadata. */
  readonly jwksUri?: string;
  /** Scopes every call needs (all of them). Default none. */
  readonly requiredScopes?: readonly string[];
  /** The claim holding the principal's groups. Default `groups`. */
  readonly groupsClaim?: string;
  /** Leeway for `exp`/`nbf`, in seconds. Default 30. */
  readonly clockToleranceSeconds?: number;
}

/** Checks one bearer token; never throws. */
export type AccessTokenVerifier = (token: string) => Promise<AuthOutcome>;

// Asymmetric only: an `HS256` token would be checked with a key the gateway does not have, and
// `none` is never a signature.
const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** The issuer's `jwks_uri`, from RFC 8414 metadata or else OpenID discovery. */
async function discoverJwksUri(issuer: string): Promise<string> {
  const base = issuer.replace(/\/+$/, "");
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${base}/.well-known/openid-configuration`,
  ];
  for (const candidate of candidates) {
    const response = await fetch(candidate, { signal: AbortSignal.timeout(10_000) }).catch(
      () => undefined,
    );
    if (!response?.ok) continue;
    const metadata = (await response.json().catch(() => undefined)) as
      | { issuer?: unknown; jwks_uri?: unknown }
      | undefined;
    if (metadata?.issuer === issuer && typeof metadata.jwks_uri === "string") {
      return metadata.jwks_uri;
    }
  }
  throw new Error(
    `no authorization server metadata naming issuer ${issuer} and a jwks_uri was found (tried ${candidates.join(", ")}); set gateway.auth.jwks_uri`,
  );
}

function scopesOf(payload: JWTPayload): string[] {
  const { scope, scp } = payload as { scope?: unknown; scp?: unknown };
  if (typeof scope === "string") return scope.split(" ").filter((word) => word !== "");
  if (Array.isArray(scp)) return scp.filter((item): item is string => typeof item === "string");
  return [];
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string")
    : [];
}

function whyInvalid(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "the token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "iss") return "the token was issued by another issuer";
    if (error.claim === "aud") return "the token is for another audience (not this gateway)";
    return `the token's ${error.claim} claim is not valid`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return "the token's signature is not valid";
  if (error instanceof errors.JWKSNoMatchingKey)
    return "the token was not signed by the issuer's keys";
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (error instanceof errors.JOSEError) return "the token could not be verified";
  return "the token could not be verified";
}

/**
 * A verifier of OAuth 2.1 bearer JWTs for the gateway as a resource server: signature from the
 * issuer's JWKS (fetched and cached by `jose`, refreshed on an unknown key id), issuer, audience,
 * expiry, a subject usable as a principal, and the required scopes. Discovers the JWKS at once,
 * so a wrong issuer stops the gateway at start rather than refusing every client later.
 *
 * @example
 * ```ts
 * const verify = await createAccessTokenVerifier({ issuer: "https://id.example.com", audience: "http://127.0.0.1:8931/mcp" });
 * declare const token: string;
 * const outcome = await verify(token); // { status: "ok", principal: { id: "alice", … } }
 * ```
 */
export async function createAccessTokenVerifier({
  issuer,
  audience,
  jwksUri,
  requiredScopes = [],
  groupsClaim = "groups",
  clockToleranceSeconds = 30,
}: AccessTokenOptions): Promise<AccessTokenVerifier> {
  const keys = createRemoteJWKSet(new URL(jwksUri ?? (await discoverJwksUri(issuer))));
  // A token's claims are read again only for its expiry: its signature was checked when it was
  // first verified, and the cache keys on its exact text.
  const expiry = new Map<string, number>();
  const verify: AccessTokenVerifier = async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms: ALGORITHMS,
        requiredClaims: ["exp", "sub"],
        clockTolerance: clockToleranceSeconds,
      }));
    } catch (error) {
      return { status: "unauthorized", error: "invalid_token", description: whyInvalid(error) };
    }
    if (!isUsablePrincipalId(payload.sub)) {
      return {
        status: "unauthorized",
        error: "invalid_token",
        description:
          "the token's subject is not usable as a principal (1-128 printable characters)",
      };
    }
    const scopes = scopesOf(payload);
    const missing = requiredScopes.filter((scope) => !scopes.includes(scope));
    if (missing.length > 0) {
      return {
        status: "forbidden",
        scope: requiredScopes.join(" "),
        description: `the token lacks the scope(s) ${missing.join(", ")}`,
      };
    }
    const { client_id: clientId, azp } = payload as { client_id?: unknown; azp?: unknown };
    const client =
      typeof clientId === "string" ? clientId : typeof azp === "string" ? azp : undefined;
    if (typeof payload.exp === "number") expiry.set(token, payload.exp * 1000);
    return {
      status: "ok",
      principal: {
        id: payload.sub,
        ...(client === undefined ? {} : { clientId: client }),
        scopes,
        groups: stringsOf(payload[groupsClaim]),
      },
    };
  };
  return cacheVerifiedTokens(verify, (token) => {
    const at = expiry.get(token);
    expiry.delete(token);
    return at;
  });
}
