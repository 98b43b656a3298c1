import { expect, test } from "bun:test";
import { digitsValue, wholeNumber } from "../../src/util/whole-number.ts";

test("digitsValue reads 1 to 16 digits and nothing else", () => {
  expect(["0", "007", "42", "9999999999999999"].map(digitsValue)).toEqual([0, 7, 42, 1e16]);
  expect(["", "-1", "+1", "1e3", "12abc", " 1", "1.0", "0x10", "12345678901234567"].map(digitsValue)).toEqual(Array(9).fill(undefined));
});

test("wholeNumber names the field: not a whole number, or past the safe integers", () => {
  expect(wholeNumber("limit", "10")).toBe(10);
  expect(() => wholeNumber("limit", "1e3")).toThrow("limit: must be a whole number");
  expect(() => wholeNumber("limit", 5)).toThrow("limit: must be a whole number");
  expect(() => wholeNumber("after", "9007199254740992")).toThrow("after: is too large");
});
