/** @jsxImportSource hono/jsx */
/**
 * Objects: the tenant's list with image previews, and their bytes. The bytes
 * are served with the type they were stored with, `nosniff`, a sandboxing
 * CSP, and as an attachment unless they are a raster image, so an uploaded
 * HTML or SVG file can never run as a page of the viewer.
 */
import type { Hono } from "hono";
import { ObjectGetInput } from "../../../schema/ops.ts";
import { parseInput } from "../../../schema/parse.ts";
import { Layout, size } from "../layout.tsx";
import { type ViewerEnv, frame, href, intParam } from "../page.ts";

/** Objects on one page. */
const OBJECT_PAGE = 100;

/** Types shown inline (in `<img>` and when opened); everything else downloads. */
export function previewable(type: string): boolean {
  return /^image\/(png|jpeg|gif|webp|avif|bmp)(\s*;|$)/i.test(type);
}

/** A file name safe inside a quoted Content-Disposition parameter, with the UTF-8 name beside it (RFC 6266). */
function disposition(kind: "inline" | "attachment", name: string | null, digest: string): string {
  const fallback = (name ?? digest.replace(":", "-")).replace(/[^\x20-\x7e]|["\\]/g, "_");
  const utf8 = name === null ? "" : `; filename*=UTF-8''${encodeURIComponent(name)}`;
  return `${kind}; filename="${fallback}"${utf8}`;
}

/** Registers /ui/objects and /ui/object/:digest. */
export function objectPages(ui: Hono<ViewerEnv>): void {
  ui.get("/objects", async (c) => {
    const after = intParam(c, "after");
    const page = await c.var.memory.objectList({ limit: OBJECT_PAGE, ...(after !== undefined ? { after } : {}) });
    return c.html(
      <Layout {...frame(c, "Objects")}>
        <h1>Objects</h1>
        {page.objects.length === 0 && <p>No objects.</p>}
        <table>
          <tbody>
            {page.objects.map((o) => (
              <tr>
                <td>
                  {previewable(o.type) ? (
                    <a href={`/ui/object/${o.object}`}>
                      <img class="thumb" src={`/ui/object/${o.object}`} alt={o.name ?? o.object} loading="lazy" />
                    </a>
                  ) : (
                    <span class="muted">no preview</span>
                  )}
                </td>
                <td>
                  <div>{o.name ?? "(no name)"}</div>
                  <div class="muted">
                    {o.type} · {size(o.size)} · LSN {o.lsn}
                  </div>
                  <div class="muted">{o.object}</div>
                </td>
                <td class="num">
                  <a href={`/ui/object/${o.object}?download=1`}>download</a> · <a href={href("/ui/forget", { kind: "object", value: o.object })}>forget…</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="pager">{page.next !== null && <a href={href("/ui/objects", { after: page.next })}>Next objects</a>}</p>
      </Layout>,
    );
  });

  ui.get("/object/:digest", async (c) => {
    const { object } = parseInput(ObjectGetInput, { object: c.req.param("digest") });
    const got = await c.var.memory.objectGet({ object });
    const inline = previewable(got.type) && c.req.query("download") === undefined;
    const body = got.path !== undefined ? Bun.file(got.path) : got.read();
    return new Response(body, {
      headers: {
        "content-type": got.type,
        "content-length": String(got.size),
        "content-disposition": disposition(inline ? "inline" : "attachment", got.name, got.object),
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
        "cache-control": "private, no-store",
      },
    });
  });
}
