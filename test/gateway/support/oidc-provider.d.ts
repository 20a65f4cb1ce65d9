// oidc-provider ships no types (and @types/oidc-provider trails its versions): the little the
// tests use, declared here.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface ResourceServerInfo {
    readonly audience: string;
    readonly scope: string;
    readonly accessTokenFormat: "jwt" | "opaque";
    readonly accessTokenTTL?: number;
    readonly jwt?: { readonly sign?: { readonly alg: string } };
  }

  interface ProviderConfiguration {
    readonly clients?: readonly Record<string, unknown>[];
    readonly scopes?: readonly string[];
    readonly jwks?: { readonly keys: readonly Record<string, unknown>[] };
    readonly features?: {
      readonly devInteractions?: { readonly enabled: boolean };
      readonly clientCredentials?: { readonly enabled: boolean };
      readonly resourceIndicators?: {
        readonly enabled: boolean;
        readonly getResourceServerInfo?: (
          ctx: unknown,
          resourceIndicator: string,
          client: unknown,
        ) => ResourceServerInfo | Promise<ResourceServerInfo>;
      };
    };
  }

  export default class Provider {
    constructor(issuer: string, configuration?: ProviderConfiguration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
