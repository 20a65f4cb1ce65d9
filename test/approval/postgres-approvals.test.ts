import { afterAll, describe } from "vitest";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { describeApprovalMatrix } from "./approval-matrix.js";

describe.skipIf(skipPostgres)("PostgreSQL", () => {
  afterAll(dropTestSchemas);
  describeApprovalMatrix("PostgreSQL", freshPostgresUrl);
});
