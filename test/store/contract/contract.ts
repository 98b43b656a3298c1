/**
 * One contract for every Store and Memory (DESIGN.md 5 and 12; issue 16),
 * after unstorage's `testDriver`: `runContract(name, factory)` runs every
 * case against whatever the factory opens. The SQLite engine, the
 * PostgreSQL engine and the HTTP client over a real `zerodb serve` run it
 * today; another engine is one more factory and one more `runContract` line.
 */
import { describe } from "bun:test";
import { asOfCases } from "./_as-of.ts";
import { captureCases } from "./_capture.ts";
import { diffCases } from "./_diff.ts";
import { errorCases } from "./_errors.ts";
import { factCases } from "./_facts.ts";
import { forgetCases } from "./_forget.ts";
import { historyCases } from "./_history.ts";
import { idempotencyCases } from "./_idempotency.ts";
import { limitCases } from "./_limits.ts";
import { nulCases } from "./_nul.ts";
import { objectCases } from "./_objects.ts";
import { redactCases } from "./_redact.ts";
import { searchPhrasingCases } from "./_search-phrasings.ts";
import { searchCases } from "./_search.ts";
import { searchNoiseCases } from "./_search-noise.ts";
import { searchRankingCases } from "./_search-ranking.ts";
import { searchTenantCases } from "./_search-tenants.ts";
import { searchWordCases } from "./_search-words.ts";
import { tenantCases } from "./_tenants.ts";
import { traceCases } from "./_trace.ts";
import { transferCases } from "./_transfer.ts";
import { turnCases } from "./_turns.ts";
import type { Factory } from "./_subject.ts";

export type { Capability, Factory, Subject } from "./_subject.ts";

/** Runs every case of the contract against the subjects `factory` opens, one fresh subject per case. */
export function runContract(name: string, factory: Factory): void {
  describe(`Store contract: ${name}`, () => {
    for (const cases of [
      turnCases,
      idempotencyCases,
      searchCases,
      searchWordCases,
      searchNoiseCases,
      searchPhrasingCases,
      searchTenantCases,
      searchRankingCases,
      factCases,
      historyCases,
      asOfCases,
      diffCases,
      forgetCases,
      objectCases,
      redactCases,
      tenantCases,
      errorCases,
      limitCases,
      nulCases,
      captureCases,
      transferCases,
      traceCases,
    ])
      cases(factory);
  });
}
