/** Tool input schemas as JSON Schema for tools/list, from the same zod schemas that validate calls (D3). */
import { z } from "zod";

/** The JSON Schema of a tool's input: an object schema, as MCP requires. */
export function inputJsonSchema(schema: z.ZodType): { type: "object"; [key: string]: unknown } {
  // io "input": optional fields are optional, as a caller sees them.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  // The spec's default dialect (2020-12) is what zod emits; leaving `$schema` out keeps strict clients happy.
  return { ...rest, type: "object" };
}
