import { z } from "zod";
import type { GatewaySettings } from "../gateway/gateway-settings.js";
import { parseDuration } from "./parse-duration.js";

const origin = z.string().refine((text) => {
  try {
    return new URL(text).origin === text;
  } catch {
    return false;
  }
}, "an origin is scheme://host[:port], with no path (e.g. https://console.example.com)");

/**
 * docket.yaml's `gateway:` section: the HTTP gateway's session cap and idle timeout, the browser
 * origins it lets in, what a client's taint is kept under, and, under `auth`, the authorization
 * server whose JWTs it accepts (docs/gateway.md).
 *
 * @example
 * ```ts
 * gatewaySectionSchema.parse({ max_sessions: 64, auth: { issuer: "https://id.example.com", scopes: ["tools:call"] } });
 * ```
 */
export const gatewaySectionSchema = z.strictObject({
  max_sessions: z.number().int().min(1).max(10_000).optional(),
  idle_timeout: z
    .union([z.string(), z.number()])
    .refine((value) => parseDuration(value) !== undefined, "expected a duration such as 10m, or 0")
    .optional(),
  allowed_origins: z.array(origin).optional(),
  taint: z.enum(["principal", "principal_and_client"]).optional(),
  resource: z.url().optional(),
  auth: z
    .strictObject({
      issuer: z.url(),
      audience: z.string().min(1).optional(),
      jwks_uri: z.url().optional(),
      scopes: z
        .array(
          z
            .string()
            .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, "a scope is printable, no spaces or quotes"),
        )
        .optional(),
      groups_claim: z.string().min(1).optional(),
      authorization_servers: z.array(z.url()).optional(),
    })
    .optional(),
});

/**
 * The checked section as settings.
 *
 * @example
 * ```ts
 * toGatewaySettings({ idle_timeout: "5m" }); // { idleTimeoutMs: 300000 }
 * ```
 */
export function toGatewaySettings(section: z.output<typeof gatewaySectionSchema>): GatewaySettings {
  const auth = section.auth;
  return {
    ...(section.max_sessions === undefined ? {} : { maxSessions: section.max_sessions }),
    ...(section.idle_timeout === undefined
      ? {}
      : { idleTimeoutMs: parseDuration(section.idle_timeout) as number }),
    ...(section.allowed_origins === undefined ? {} : { allowedOrigins: section.allowed_origins }),
    ...(section.taint === undefined ? {} : { taintScope: section.taint }),
    ...(section.resource === undefined ? {} : { resource: section.resource }),
    ...(auth === undefined
      ? {}
      : {
          oauth: {
            issuer: auth.issuer,
            ...(auth.audience === undefined ? {} : { audience: auth.audience }),
            ...(auth.jwks_uri === undefined ? {} : { jwksUri: auth.jwks_uri }),
            ...(auth.scopes === undefined ? {} : { requiredScopes: auth.scopes }),
            ...(auth.groups_claim === undefined ? {} : { groupsClaim: auth.groups_claim }),
            ...(auth.authorization_servers === undefined
              ? {}
              : { authorizationServers: auth.authorization_servers }),
          },
        }),
  };
}
