/** Reading a viewer form body: `application/x-www-form-urlencoded`, at most 64 KiB, counted as it streams. */
import { ZeroDbError } from "../../errors.ts";
import { readLimited } from "../../util/read-limited.ts";

/** The largest form the viewer reads: a selector, a token, a CSRF field. */
export const FORM_MAX_BYTES = 64 * 1024;

/** The fields of a form POST (400 for another type, 413 past the limit). */
export async function readForm(req: Request): Promise<URLSearchParams> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new ZeroDbError("unsupported_media_type", "content-type: send the form as application/x-www-form-urlencoded", { field: "content-type" });
  }
  const over = () => new ZeroDbError("too_large", `body: a form is at most ${FORM_MAX_BYTES} bytes`, { field: "body" });
  const bytes = await readLimited(req.body, { max: FORM_MAX_BYTES, over });
  return new URLSearchParams(new TextDecoder().decode(bytes));
}
