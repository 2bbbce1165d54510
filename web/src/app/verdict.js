// The verdict JSON as the web app reads it: the kernel's one definition is
// practice/cjudge/verdict_json.py (VerdictJSON, CaseResult); these typedefs name the same fields
// for editors and readers (import("./verdict.js").VerdictJSON), and the API's /docs shows the
// same schema.

/**
 * A float of the verdict JSON (Real in verdict_json.py): JSON has no NaN or infinity, so those
 * are the strings "nan", "inf" and "-inf" (units.js's nonFinite prints either form).
 * @typedef {number|"nan"|"inf"|"-inf"} Real
 */

/**
 * One graded case.
 * @typedef {object} CaseResult
 * @property {string} name
 * @property {number} world_size
 * @property {string} verdict a verdict code ("accepted", "wrong_answer", …)
 * @property {string} message
 * @property {string} message_zh
 * @property {string[]} details a failing rank's traceback
 * @property {number[]} bytes_sent per rank, inside the graded call
 * @property {number} bytes_bound the busiest rank's bound
 * @property {number[]} [bytes_bounds] per rank, when the ranks' bounds differ
 * @property {number[]} messages_sent per rank
 * @property {Real} wall_ms
 * @property {object[]} trace the graded calls (rank, seq, op, peer, bytes, count, dtype, line, api)
 * @property {boolean} [trace_truncated] the server kept the first calls only
 * @property {{cycle: number[], blocked: object[], lines: {en: string, zh: string}[]}} [deadlock]
 * @property {{peak: Real, bound: Real, what: string, what_zh: string}} [memory]
 * @property {object} [model] topology, modelled sizes and times, bound, floor
 * @property {{inputs: object[], outputs: any[], expected: any[]}} [sample] any float in it may be a Real's string
 * @property {object} [timeline] the trace view's data (cjudge.view.timeline)
 * @property {CaseResult} [smallest] the smallest case that fails the same way
 */

/**
 * A submission's verdict: the first failing case's, and every case graded.
 * @typedef {object} VerdictJSON
 * @property {string} exercise
 * @property {string} verdict
 * @property {string} message
 * @property {string} message_zh
 * @property {string} runtime "sim", "torch", "torch-gloo", …
 * @property {CaseResult[]} cases
 * @property {string[]} [skipped] cases not run after the first failure
 * @property {string} stdout
 * @property {string} judge_version
 * @property {number} seed
 * @property {string} exercise_hash
 * @property {number|null} [line] a compile error's place
 * @property {number|null} [column]
 * @property {boolean} [unavailable] the server could not judge it now
 */

export {};
