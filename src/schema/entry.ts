/** One entry of an append (DESIGN.md section 5): the operations' schemas (ops.ts) and the capture batch's (capture.ts) share it. */
import { z } from "zod";
import { CONTENT_MAX_BYTES, META_MAX_BYTES } from "../limits.ts";
import { IdemKey, Role, jsonValue, utf8String } from "./common.ts";

/** One entry of an append. */
export const Entry = z.strictObject({
  role: Role.describe("who said it: user, assistant, tool, system or note"),
  content: utf8String({ max: CONTENT_MAX_BYTES }).describe("the text of the turn, at most 4 MiB"),
  meta: jsonValue(META_MAX_BYTES, { object: true }).optional().describe("a JSON object of extra data, at most 16 KiB"),
  idem_key: IdemKey.optional().describe("a key naming this write forever; a retry with it is recognized, not written twice"),
});
