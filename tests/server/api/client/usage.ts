// A client of the judge's API generated from its OpenAPI document (openapi-typescript types,
// openapi-fetch calls), as an API user would write one. test_generated_client.py generates
// ./api.d.ts next to this file and type-checks both (tsc --noEmit --strict): a path, parameter,
// body or field the document no longer has, or a type it changed, fails the build.
import createClient from "openapi-fetch";
import type { components, paths } from "./api";

type Verdict = components["schemas"]["SubmissionOut"]["result"];

const client = createClient<paths>({ baseUrl: "http://localhost:8000" });

/** Submit a file, then read its verdict once (an API client would poll or follow the events). */
export async function submit(token: string, exercise: string, code: string): Promise<Verdict> {
  const headers = { Authorization: `Bearer ${token}` };
  const listed = await client.GET("/api/exercises");
  const known: string[] = (listed.data ?? []).map((e) => e.id);
  if (!known.includes(exercise)) throw new Error(`no exercise ${exercise}`);
  const created = await client.POST("/api/submissions", {
    headers, body: { exercise, code, filename: `${exercise}.py` } });
  if (created.error) {  // every error has the three fields: code, detail and message_zh
    const code: string = created.error.code;
    const zh: string = created.error.message_zh;
    const detail: string | components["schemas"]["ValidationIssue"][] = created.error.detail;
    const en = typeof detail === "string" ? detail : detail.map((d) => d.msg).join("; ");
    throw new Error(`${code}: ${en} (${zh})`);
  }
  const id: number = created.data.id;
  const read = await client.GET("/api/submissions/{submission_id}", {
    headers, params: { path: { submission_id: id } } });
  if (read.error) throw new Error(String(read.error.detail));
  const status: string = read.data.status;
  const cases: string[] = read.data.cases_so_far.map((c) => String(c.name));
  console.log(status, cases.join(", "));
  return read.data.result;
}
