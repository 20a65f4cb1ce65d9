import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import Provider from "oidc-provider";

/** A client the local provider issues tokens to (client credentials grant). */
export interface LocalClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The scopes it may be granted. */
  readonly scope: string;
}

/** A real OpenID provider (`oidc-provider`) on 127.0.0.1, issuing JWT access tokens. */
export interface LocalOidc {
  readonly issuer: string;
  /** Sign a token with the provider's own key and any claims (expired, wrong issuer…). */
  sign(claims: Record<string, unknown>): Promise<string>;
  /** A token from the provider's token endpoint for `resource`. */
  token(client: LocalClient, resource: string, scope?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Start `oidc-provider` with the client credentials grant and resource indicators: an access
 * token for a resource is a JWT whose audience is that resource, signed with an ES256 key.
 */
export async function startLocalOidc(clients: readonly LocalClient[]): Promise<LocalOidc> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "ES256", use: "sig" };
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const scopes = [...new Set(clients.flatMap((client) => client.scope.split(" ")))];
  const provider = new Provider(issuer, {
    clients: clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic",
      scope: client.scope,
      id_token_signed_response_alg: "ES256",
    })),
    scopes,
    jwks: { keys: [jwk] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx, resource) => ({
          audience: resource,
          scope: scopes.join(" "),
          accessTokenFormat: "jwt",
          accessTokenTTL: 300,
          jwt: { sign: { alg: "ES256" } },
        }),
      },
    },
  });
  http.on("request", provider.callback());
  return {
    issuer,
    sign: (claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: "test-key" }).sign(privateKey),
    async token(client, resource, scope = client.scope) {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope }),
      });
      const body = (await response.json()) as { access_token?: string; error?: string };
      if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
