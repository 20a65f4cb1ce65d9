import { describe, expect, it } from "vitest";
import { echoGateway, runCrowd } from "../../bench/gateway-admission.js";

// Clients over the session cap: each one either finishes every call or is refused when it
// connects; none is cut mid-call, and every answered call and every refusal is in a trail that verifies.
describe("admission over the session cap", () => {
  for (const clients of [64, 128]) {
    it(`${clients} clients against a cap of 16: completed or refused at connect, none cut`, async () => {
      const gateway = await echoGateway(16);
      try {
        const outcome = await runCrowd(gateway.url, gateway.token, clients, 3);
        expect(outcome.cut).toBe(0);
        expect(outcome.completed + outcome.refusedAtConnect).toBe(clients);
        expect(outcome.completed).toBeGreaterThanOrEqual(16);
        expect(outcome.calls).toBe(outcome.completed * 3);
        const trail = await gateway.trail();
        expect(trail.calls).toBe(outcome.calls);
        expect(trail.refusedAtConnect).toBe(outcome.refusedAtConnect);
        expect(trail.verified).toBe(true);
      } finally {
        await gateway.close();
      }
    }, 120_000);
  }
});
