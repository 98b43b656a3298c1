/** @jsxImportSource hono/jsx */
/**
 * The SessionStart context a project would get now (DESIGN.md 13, 7.2):
 * capture's own startContext, run for a session that has not started, over
 * a Memory that cannot write, so looking changes nothing (startContext
 * records the latest capture; here that write is dropped).
 */
import type { Hono } from "hono";
import { startContext } from "../../../capture/start-context.ts";
import { ZeroDbError } from "../../../errors.ts";
import type { Memory } from "../../../store/types.ts";
import { Layout, size } from "../layout.tsx";
import { type ViewerEnv, frame, href, required } from "../page.ts";

/** Bytes per token for the estimate: about four for English text and code. */
const BYTES_PER_TOKEN = 4;

const WRITES = new Set(["append", "forget", "objectPut", "linkAdd"]);

/** A Memory whose fact writes are dropped and whose other writes fail: reading only. */
export function readOnly(memory: Memory): Memory {
  return new Proxy(memory, {
    get(target, prop, receiver) {
      if (prop === "factSet") return async () => ({ lsn: 0, duplicate: true });
      if (typeof prop === "string" && WRITES.has(prop)) {
        return async () => {
          throw new ZeroDbError("internal", `the context preview tried to ${prop}`);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Registers /ui/context. */
export function contextPages(ui: Hono<ViewerEnv>): void {
  ui.get("/context", async (c) => {
    const project = required(c, "project");
    const text = await startContext(readOnly(c.var.memory), { project, session: `${project}/viewer-preview`, harnessSession: "viewer-preview" });
    const bytes = Buffer.byteLength(text, "utf8");
    return c.html(
      <Layout {...frame(c, `Context: ${project}`)}>
        <h1>SessionStart context of {project}</h1>
        <p>
          What a new session of this project would be told at its start now: <strong data-bytes={bytes}>{size(bytes)}</strong> ({bytes} bytes, about{" "}
          {Math.ceil(bytes / BYTES_PER_TOKEN)} tokens at {BYTES_PER_TOKEN} bytes a token).
        </p>
        {text === "" ? <p>Nothing: the project's memory holds nothing worth starting with.</p> : <pre>{text}</pre>}
        <p>
          <a href={href("/ui/search", { prefix: `${project}/` })}>Search this project</a>
        </p>
      </Layout>,
    );
  });
}
