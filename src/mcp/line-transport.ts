/**
 * The MCP stdio transport (newline-delimited JSON-RPC), with one difference
 * from the SDK's: a line longer than the limit is not a reason to stop
 * serving. Its bytes are dropped as they arrive (never buffered past the
 * limit), and once its newline comes the client gets a JSON-RPC error for
 * it (`id` read from the line's head or tail when it can be, else null);
 * the lines after it are served as usual.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { RpcCode, parseLine, serializeLine } from "./jsonrpc.ts";

/** How much of an over-long line's start and end is kept to find its id. */
const EDGE_BYTES = 4096;

/** An id at the very start (`{"id": 7, ...`) or the very end (`..., "id": 7}`) of a request line. */
const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*,/;
const TAIL_ID = /,\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/;

/** The id of a request line from its first and last bytes, or null when neither shows one. */
export function idOfEdges(head: string, tail: string): string | number | null {
  const m = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return null;
  }
}

/** A stdio transport over `input`/`output` that answers over-long lines with an error. */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while dropping an over-long line: its first bytes and its last bytes so far. */
  private dropping: { head: string; tail: Buffer; bytes: number } | undefined;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly maxLineBytes: number,
  ) {}

  private readonly onData = (chunk: Buffer) => {
    let rest = chunk;
    while (rest.length > 0) {
      const nl = rest.indexOf(10);
      const piece = nl === -1 ? rest : rest.subarray(0, nl);
      if (this.dropping) this.drop(piece);
      else if (this.size + piece.length > this.maxLineBytes) this.startDropping(piece);
      else {
        this.chunks.push(piece);
        this.size += piece.length;
      }
      if (nl === -1) return;
      this.endLine();
      rest = rest.subarray(nl + 1);
    }
  };

  private readonly onError = (err: Error) => this.onerror?.(err);

  private startDropping(piece: Buffer): void {
    const line = Buffer.concat([...this.chunks, piece]);
    this.chunks = [];
    this.size = 0;
    this.dropping = { head: line.subarray(0, EDGE_BYTES).toString("utf8"), tail: Buffer.alloc(0), bytes: 0 };
    this.drop(line.subarray(EDGE_BYTES));
  }

  private drop(piece: Buffer): void {
    const d = this.dropping!;
    d.bytes += piece.length;
    d.tail = Buffer.concat([d.tail, piece.subarray(Math.max(0, piece.length - EDGE_BYTES))]);
    if (d.tail.length > EDGE_BYTES) d.tail = d.tail.subarray(d.tail.length - EDGE_BYTES);
  }

  private endLine(): void {
    if (this.dropping) {
      const d = this.dropping;
      this.dropping = undefined;
      const id = idOfEdges(d.head, d.tail.toString("utf8"));
      this.onerror?.(new Error(`a message line over the limit of ${this.maxLineBytes} bytes was dropped (id ${JSON.stringify(id)})`));
      void this.sendRaw({
        jsonrpc: "2.0",
        id,
        error: { code: RpcCode.InvalidRequest, message: `the message is over the limit of ${this.maxLineBytes} bytes per line; send less per call` },
      });
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.size = 0;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = parseLine(line);
    } catch (err) {
      // As the SDK's transport does: a malformed line is reported, never answered on stdout.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.onmessage?.(message);
  }

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("error", this.onError);
  }

  async close(): Promise<void> {
    this.input.off("data", this.onData);
    this.input.off("error", this.onError);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.chunks = [];
    this.size = 0;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.sendRaw(message);
  }

  /** Writes one line; `id: null` errors are valid JSON-RPC but not in the SDK's message type. */
  private sendRaw(message: JSONRPCMessage | { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string } }): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(serializeLine(message))) resolve();
      else this.output.once("drain", resolve);
    });
  }
}
