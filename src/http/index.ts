export { createApp } from "./app.ts";
export { requireToken, unauthorized } from "./auth.ts";
export { asObject, readJsonBody, readLimited } from "./body.ts";
export type { App, AppOptions, HttpEnv, RouteGroup } from "./env.ts";
export { errorResponse, errorsOnly, notFound, onError } from "./errors.ts";
export { queryInput } from "./query.ts";
export { isLoopbackHost, serveHttp } from "./serve.ts";
