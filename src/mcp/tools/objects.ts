/**
 * object_put, object_get and link_add (DESIGN.md 6.2 and section 8): files
 * move between the allowed roots and the object store; small images come
 * back inline as MCP image content.
 */
import { createReadStream } from "node:fs";
import { basename } from "node:path";
import { invalid } from "../../errors.ts";
import { saveNew } from "../../objects/save.ts";
import { LinkAddInput, ObjectGetInput, ObjectPutMeta } from "../../schema/ops.ts";
import { utf8String } from "../../schema/common.ts";
import { allowedRoots, newFileInsideRoots, openInsideRoots } from "../roots.ts";
import { defineTool } from "../tool.ts";

/** Images at most this large come back inline (DESIGN.md section 8). */
export const INLINE_IMAGE_MAX_BYTES = 1024 * 1024;

/** Image types models take as image content; other types go to a file. */
const INLINE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const FilePath = utf8String({ min: 1, max: 4096 });

/** object_put's input: the operation's metadata plus the file to read. */
export const ObjectPutToolInput = ObjectPutMeta.extend({
  path: FilePath.describe("the file to store: inside the working directory or a configured object root"),
});

/** object_get's input: the operation's input plus where to write the bytes. */
export const ObjectGetToolInput = ObjectGetInput.extend({
  path: FilePath.optional().describe(
    "a new file to write the bytes to, inside the working directory or an object root (never overwritten); needed for anything but a small image",
  ),
});

/** The image type the bytes themselves say (PNG, JPEG, GIF, WebP signatures), or undefined. */
export function imageType(b: Uint8Array): string | undefined {
  const at = (i: number, ...xs: number[]) => xs.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return "image/gif";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "image/webp";
  return undefined;
}

function mediaType(type: string): string {
  return type.split(";")[0]!.trim().toLowerCase();
}

/** The object_put tool. */
export const objectPut = defineTool({
  name: "object_put",
  title: "Store a file",
  description:
    "Store a file's bytes in memory by content (sha256), e.g. a screenshot, a log, a build artifact worth keeping. " +
    "The path must be inside the working directory or a configured object root. name defaults to the file's name and type to a guess from its extension. " +
    "Returns {object: 'sha256:<hex>', size, type, lsn}; pass object to object_get later, or mention it in a remembered note.",
  input: ObjectPutToolInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const roots = allowedRoots(ctx.cwd, ctx.objectRoots);
    const file = openInsideRoots(args.path, { cwd: ctx.cwd, roots, field: "path" });
    const stream = createReadStream("", { fd: file.fd, highWaterMark: 1024 * 1024 });
    try {
      const r = await ctx.memory.objectPut(stream as AsyncIterable<Uint8Array>, {
        name: args.name ?? basename(file.real),
        type: args.type ?? Bun.file(file.real).type,
        ...(args.idem_key !== undefined ? { idem_key: args.idem_key } : {}),
      });
      const text = r.duplicate
        ? `Already stored (same idem_key): ${r.object} at lsn ${r.lsn}; nothing new was written.`
        : `Stored ${args.path} as ${r.object} (${r.size} bytes, ${r.type}) at lsn ${r.lsn}.`;
      return { text, structured: r };
    } finally {
      stream.destroy();
    }
  },
});

/** The object_get tool. */
export const objectGet = defineTool({
  name: "object_get",
  title: "Get a stored file",
  description:
    "Get an object stored with object_put by its digest (sha256:<hex>). A PNG, JPEG, GIF or WebP image of at most 1 MiB comes back inline, so you can see it. " +
    "Anything else is written to `path`, a new file inside the working directory or a configured object root (an existing file is never overwritten); " +
    "without a path you get an error that states the object's size and type, and nothing is written.",
  input: ObjectGetToolInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const got = await ctx.memory.objectGet({ object: args.object });
    const info = { object: got.object, size: got.size, type: got.type, name: got.name, lsn: got.lsn };
    if (args.path === undefined) {
      // Inline only what really is an image: the bytes are sniffed, the declared type is not trusted
      // (a key file stored as image/png must not reach the model as "an image").
      const bytes =
        got.size <= INLINE_IMAGE_MAX_BYTES && INLINE_IMAGE_TYPES.has(mediaType(got.type))
          ? new Uint8Array(await new Response(got.read()).arrayBuffer())
          : undefined;
      const sniffed = bytes && imageType(bytes);
      if (bytes && sniffed) {
        return {
          text: `Image ${got.object}${got.name ? ` (${got.name})` : ""}: ${got.size} bytes, ${sniffed}.`,
          structured: info,
          blocks: [{ type: "image", data: Buffer.from(bytes).toString("base64"), mimeType: sniffed }],
        };
      }
      throw invalid(
        "path",
        `required for ${got.object}: it is ${got.size} bytes of ${got.type}${bytes ? " whose bytes are not an image" : ""}, too large or not an image to return inline; ` +
          "give a path for a new file inside the working directory or an object root",
      );
    }
    const target = newFileInsideRoots(args.path, { cwd: ctx.cwd, roots: allowedRoots(ctx.cwd, ctx.objectRoots), field: "path" });
    const written = await saveNew(target, got, { field: "path" });
    return { text: `Wrote ${written} bytes (${got.type}) of ${got.object} to ${target}.`, structured: { ...info, path: target } };
  },
});

/** The link_add tool. */
export const linkAdd = defineTool({
  name: "link_add",
  title: "Save a link",
  description:
    "Save a URL (http or https) with an optional title and note, e.g. documentation, an issue, a design doc the user points to. " +
    "zerodb never fetches it; the title, note and URL are searchable with search. Returns the link's lsn (forget it with forget {link: lsn}).",
  input: LinkAddInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.memory.linkAdd(args);
    const text = r.duplicate ? `Already saved (same idem_key): link at lsn ${r.lsn}.` : `Saved link ${args.url} at lsn ${r.lsn} (it is never fetched).`;
    return { text, structured: { url: args.url, ...r } };
  },
});
