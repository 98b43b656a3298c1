/** @jsxImportSource hono/jsx */
/**
 * The viewer's "as of" control (DESIGN.md section 17, issue 33): a field that
 * takes an LSN or an ISO 8601 time, and the line that says a page shows
 * memory as it was. The memory checks the value (AsOf), so a bad one is
 * refused naming `as_of` like on every other door.
 */

/** The field, for a GET form: empty means now. */
export function AsOfField(props: { value: string | undefined }) {
  return (
    <label>
      As of <input type="text" name="as_of" value={props.value ?? ""} size={24} placeholder="LSN or 2026-03-03T09:30:00Z" />
    </label>
  );
}

/** The notice a page shows while it is as of a point. */
export function AsOfNotice(props: { value: string | undefined; now: string }) {
  if (props.value === undefined) return null;
  return (
    <p class="muted" role="status">
      As the memory was at {/^\d+$/.test(props.value) ? `LSN ${props.value}` : props.value} · <a href={props.now}>now</a>
    </p>
  );
}
