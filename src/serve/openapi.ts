// The OpenAPI 3.1 description served at /openapi.json, made from the route table itself so that it never
// lists a route the server lacks (or misses one it has).
import type { Route } from "./routes.js";

export function openApi(routes: readonly Route[], version: string, tokenSet: boolean): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, "{$1}");
    const parameters = [...r.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      summary: r.summary,
      parameters,
      ...(r.mutating || tokenSet ? { security: [{ bearer: [] }] } : {}),
      responses: {
        "200": { description: "OK" },
        "400": { $ref: "#/components/responses/Error" },
        "401": { $ref: "#/components/responses/Error" },
        "404": { $ref: "#/components/responses/Error" },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "avalanche-web serve", version },
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      responses: {
        Error: {
          description:
            "An error: its code (an AvaError code, or an HTTP one such as UNAUTHORIZED) and message",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  error: {
                    type: "object",
                    properties: { code: { type: "string" }, message: { type: "string" } },
                    required: ["code", "message"],
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
