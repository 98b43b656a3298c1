/**
 * The paths a data dir holds, named without loading bun:sqlite, so the CLI
 * and doctor can check them before the store is opened (issue 14, item 3).
 */
import { join } from "node:path";
import type { PrivatePath } from "../../util/private-path.ts";
import { ID_FILE } from "./identity.ts";

/** The store file's name inside the data dir. */
export const DB_FILE = "zerodb.sqlite";

/**
 * What zerodb keeps in a data dir, as kept paths: the data dir itself (and
 * its parent, whoever can rename it can swap it), the store file, SQLite's
 * -wal and -shm beside it (https://sqlite.org/tempfiles.html), the id file,
 * and the top of the object tree (section 8).
 */
export function dataDirPaths(dataDir: string): PrivatePath[] {
  const setting = "--data-dir, ZERODB_DATA_DIR or data_dir";
  const file = (name: string, label: string): PrivatePath => ({ path: join(dataDir, name), kind: "file", label, setting });
  const dir = (name: string): PrivatePath => ({ path: join(dataDir, name), kind: "dir", label: "object dir", setting });
  return [
    { path: dataDir, kind: "dir", label: "data dir", setting, parent: true },
    file(DB_FILE, "store file"),
    file(`${DB_FILE}-wal`, "store WAL file"),
    file(`${DB_FILE}-shm`, "store shared-memory file"),
    file(ID_FILE, "store id file"),
    dir("objects"),
    dir(join("objects", "sha256")),
    dir(join("objects", "tmp")),
  ];
}
