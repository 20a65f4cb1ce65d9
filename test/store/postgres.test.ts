import { afterAll, describe } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { describeStoreContract } from "./store-contract.js";

describe.skipIf(skipPostgres)("PostgreSQL", () => {
  afterAll(dropTestSchemas);
  describeStoreContract("PostgreSQL", () => openStore(freshPostgresUrl()));
});
