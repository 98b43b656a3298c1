/**
 * The zod constructors the lazily built schemas use, for zod.ts to require.
 * Named one by one: a module required whole keeps every export it offers, and
 * zod's `z` would bring all of zod into the bundle, each of its locales too.
 */
export { array, boolean, enum, literal, looseObject, number, object, record, strictObject, string, tuple, union, unknown, url } from "zod";
