/**
 * A tenant's Memory over any engine (STYLE.md habit 1, issue 31 "each idea
 * written once"): what every engine does the same way lives here, once.
 * Each operation's input is parsed by its schema; a write is redacted and
 * parsed again (a marker may be longer than the secret it replaced, and the
 * limits still hold); `as_of` is resolved to an LSN; several phrasings are
 * fused in one snapshot; each failure becomes a ZeroDbError. An engine
 * supplies only what differs: its operations on parsed inputs, how it runs a
 * write and a read, and where its schemas come from.
 */
import type { ObjectSource } from "../objects/types.ts";
import type * as Ops from "../schema/ops.ts";
import type { ObjectPutMeta } from "../schema/ops.ts";
import type * as Out from "../schema/results.ts";
import { isPlainFactGet } from "../schema/names.ts";
import { parseInput } from "../schema/parse.ts";
import { searchPhrasings } from "../search/fuse.ts";
import { type AsOfLookup, atPoint, boundOf } from "./as-of.ts";
import { diffSpan } from "./diff.ts";
import { checkObjectMeta, redactAppend, redactFact, redactLink, withRedacted } from "./redact-input.ts";
import type { Memory, ObjectBody } from "./types.ts";

type Maybe<T> = T | Promise<T>;

/** One engine's operations for one tenant, on parsed (and redacted) inputs. */
export interface EngineOps {
  append(input: Ops.AppendInput): Maybe<Out.AppendResult>;
  read(input: Ops.ReadInput): Maybe<Out.ReadResult>;
  /** `upto`: the LSN of an `as_of`, or undefined for now. */
  sessions(input: Ops.SessionsInput, upto: number | undefined): Maybe<Out.SessionsResult>;
  /** One phrasing. */
  search(input: Ops.SearchInput): Maybe<Out.SearchResult>;
  /** Runs the phrasings of one search so that all of them read one snapshot (I4). */
  snapshot<T>(fn: () => T): T;
  factSet(input: Ops.FactSetInput): Maybe<Out.WriteResult>;
  factGet(input: Ops.FactGetInput, upto: number | undefined): Maybe<Out.Fact>;
  factList(input: Ops.FactListInput, upto: number | undefined): Maybe<Out.FactListResult>;
  forget(input: Ops.ForgetInput): Maybe<Out.ForgetResult>;
  objectPut(body: ObjectSource, meta: ObjectPutMeta): Maybe<Out.ObjectPutResult>;
  objectGet(input: Ops.ObjectGetInput): Maybe<ObjectBody>;
  objectList(input: Ops.ObjectListInput): Maybe<Out.ObjectListResult>;
  linkAdd(input: Ops.LinkAddInput): Maybe<Out.WriteResult>;
  linkList(input: Ops.LinkListInput): Maybe<Out.LinkListResult>;
  factHistory(input: Ops.FactHistoryInput): Maybe<Out.FactHistoryResult>;
  activity(input: Ops.ActivityInput): Maybe<Out.ActivityResult>;
  stats(): Maybe<Out.StatsResult>;
  diff(input: Ops.DiffInput, span: { from: number; to: number }): Maybe<Out.DiffResult>;
  /** How `as_of` points are found in this tenant's records. */
  asOf: AsOfLookup;
}

/** How an engine runs its operations. */
export interface EngineRun {
  /** Runs a write (or any operation that must not be retried), mapping failures to ZeroDbError. */
  write<T>(fn: () => Maybe<T>): Promise<T>;
  /** Runs a read, which the engine may retry on a fresh connection. */
  read<T>(fn: () => Maybe<T>): Promise<T>;
  /** The operations' schemas: at once when loaded, else once loaded (a capture hook never builds them). */
  schemas(): Maybe<typeof Ops>;
  /** Take secrets out of every write (DESIGN.md 7.2). */
  redact: boolean;
}

/** The tenant's Memory: the engine's operations behind the steps every engine shares. */
export function createMemory(tenant: string, engine: EngineOps, run: EngineRun): Memory {
  const { redact } = run;
  /** `fn` with the schemas, without waiting when they are loaded already. */
  const withOps = <T>(fn: (In: typeof Ops) => Maybe<T>): Maybe<T> => {
    const m = run.schemas();
    return m instanceof Promise ? m.then(fn) : fn(m);
  };
  const at = <T extends { as_of?: number | string }>(input: T) => atPoint(input, engine.asOf);
  return {
    tenant,
    append: (i) =>
      run.write(() =>
        withOps((In) => {
          const r = redactAppend(parseInput(In.AppendInput, i), redact);
          // Parsed again only when redaction changed it (a marker may be longer than its secret; "off" adds a key).
          return then(engine.append(r.unchanged ? r.input : parseInput(In.AppendInput, r.input)), (out) => withRedacted(out, r.redacted));
        }),
      ),
    read: (i) => run.read(() => withOps(async (In) => engine.read(await at(parseInput(In.ReadInput, i))))),
    sessions: (i) =>
      run.read(() =>
        withOps(async (In) => {
          const input = await at(parseInput(In.SessionsInput, i ?? {}));
          return engine.sessions(input, boundOf(input));
        }),
      ),
    search: (i) =>
      run.read(() =>
        withOps(async (In) => {
          const input = await at(parseInput(In.SearchInput, i));
          // One phrasing is one search, in the engine's own snapshot already.
          if (input.queries === undefined) return engine.search(input);
          return engine.snapshot(() => searchPhrasings(input, (p) => engine.search(p)));
        }),
      ),
    factSet: (i) =>
      run.write(() =>
        withOps((In) => {
          const r = redactFact(parseInput(In.FactSetInput, i), redact);
          return then(engine.factSet(parseInput(In.FactSetInput, r.input)), (out) => withRedacted(out, r.redacted));
        }),
      ),
    // A plain `{key}` (what a hook and most tools ask) needs no schema.
    factGet: (i) =>
      run.read(() =>
        isPlainFactGet(i)
          ? engine.factGet(i, undefined)
          : withOps(async (In) => {
              const input = await at(parseInput(In.FactGetInput, i));
              return engine.factGet(input, boundOf(input));
            }),
      ),
    factList: (i) =>
      run.read(() =>
        withOps(async (In) => {
          const input = await at(parseInput(In.FactListInput, i ?? {}));
          return engine.factList(input, boundOf(input));
        }),
      ),
    forget: (i) => run.write(() => withOps((In) => engine.forget(parseInput(In.ForgetInput, i)))),
    // A name holding a secret is refused before a byte of the body is read.
    objectPut: (body, meta) =>
      run.write(async () => {
        const checked = await withOps((In) => checkObjectMeta(parseInput(In.ObjectPutMeta, meta ?? {}), redact));
        return engine.objectPut(body, checked);
      }),
    objectGet: (i) => run.write(() => withOps((In) => engine.objectGet(parseInput(In.ObjectGetInput, i)))),
    objectList: (i) => run.read(() => withOps((In) => engine.objectList(parseInput(In.ObjectListInput, i ?? {})))),
    linkAdd: (i) =>
      run.write(() =>
        withOps((In) => {
          const r = redactLink(parseInput(In.LinkAddInput, i), redact);
          return then(engine.linkAdd(parseInput(In.LinkAddInput, r.input)), (out) => withRedacted(out, r.redacted));
        }),
      ),
    linkList: (i) => run.read(() => withOps((In) => engine.linkList(parseInput(In.LinkListInput, i ?? {})))),
    factHistory: (i) => run.read(() => withOps((In) => engine.factHistory(parseInput(In.FactHistoryInput, i)))),
    activity: (i) => run.read(() => withOps((In) => engine.activity(parseInput(In.ActivityInput, i ?? {})))),
    stats: (i) =>
      run.read(() =>
        withOps((In) => {
          parseInput(In.StatsInput, i ?? {});
          return engine.stats();
        }),
      ),
    diff: (i) =>
      run.read(() =>
        withOps(async (In) => {
          const input = parseInput(In.DiffInput, i);
          return engine.diff(input, await diffSpan(input, engine.asOf));
        }),
      ),
  };
}

/** `f` of a value or of a promise's value, without a promise when there was none. */
function then<T, U>(v: Maybe<T>, f: (t: T) => U): Maybe<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}
