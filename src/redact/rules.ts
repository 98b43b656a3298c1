/**
 * Every rule, in the order that settles overlaps: a provider's own format
 * names the kind before a rule that only knows the name or the position.
 */
import { ASSIGNMENT_RULES } from "./assignment.ts";
import { CLOUD_RULES } from "./cloud.ts";
import { GENERIC_RULES } from "./generic.ts";
import { KEY_RULES } from "./keys.ts";
import { NEARBY_RULES } from "./nearby.ts";
import { SERVICE_RULES } from "./services.ts";
import { VENDOR_RULES } from "./vendors.ts";
import type { Rule } from "./types.ts";

/** All rules, most specific first. */
export const RULES: Rule[] = [...KEY_RULES, ...CLOUD_RULES, ...SERVICE_RULES, ...VENDOR_RULES, ...GENERIC_RULES, ...NEARBY_RULES, ...ASSIGNMENT_RULES];
