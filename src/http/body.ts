/**
 * Reading a JSON request body under the 8 MiB limit of DESIGN.md section 3,
 * while it streams in: a declared Content-Length over the limit is refused
 * before a byte is read, and a chunked body is counted as it arrives and
 * refused the moment it passes the limit, so no request can make the server
 * buffer more than the limit.
 */
import { ZeroDbError, invalid } from "../errors.ts";
import { HTTP_BODY_MAX_BYTES } from "../limits.ts";
import { readLimited } from "../util/read-limited.ts";
import { digitsValue } from "../util/whole-number.ts";

/** too_large for a body, naming the limit. */
function bodyTooLarge(what: string): ZeroDbError {
  return new ZeroDbError("too_large", `body: ${what} over the limit of ${HTTP_BODY_MAX_BYTES} bytes for a JSON request`, { field: "body" });
}

/** Refuses anything but `application/json` (with no charset, or UTF-8): 415 (RFC 8259 section 8.1). */
export function checkJsonType(contentType: string | null): void {
  const [type, ...params] = (contentType ?? "").split(";");
  let ok = type!.trim().toLowerCase() === "application/json";
  for (const p of params) {
    const [name, value] = p.split("=", 2).map((s) => s.trim().toLowerCase());
    if (name === "charset" && value?.replace(/^"|"$/g, "") !== "utf-8") ok = false;
  }
  if (!ok) {
    throw new ZeroDbError("unsupported_media_type", "content-type: the body must be JSON: send Content-Type: application/json", {
      field: "content-type",
    });
  }
}

/** The parsed JSON body of a request (415, 413 or 400 when it cannot be one). */
export async function readJsonBody(req: Request): Promise<unknown> {
  checkJsonType(req.headers.get("content-type"));
  const declared = req.headers.get("content-length");
  if (declared !== null) {
    // Past the limit is too_large (413), however large: not wholeNumber's "is too large" (400).
    const length = digitsValue(declared);
    if (length === undefined) throw invalid("content-length", "must be a whole number");
    if (length > HTTP_BODY_MAX_BYTES) throw bodyTooLarge(`its Content-Length of ${declared} bytes is`);
  }
  const bytes = await readLimited(req.body, { max: HTTP_BODY_MAX_BYTES, over: () => bodyTooLarge(`it passed ${HTTP_BODY_MAX_BYTES} bytes,`) });
  if (bytes.byteLength === 0) throw invalid("body", "required: a JSON object");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid("body", "is not valid UTF-8");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid("body", "is not valid JSON");
  }
}

/** The body as a JSON object (routes that add fields from the path need one). */
export function asObject(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid("body", "must be a JSON object");
  return value as Record<string, unknown>;
}
