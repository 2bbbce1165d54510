// What every hub tells the main thread while the judge runs: a case's ranks started (the
// time-limit watchdog starts then), a case was graded.
export class ProgressHub {
  constructor(post) {
    this.post = post;
  }

  ranks_started(job, spec) {
    this.post({ type: "case-start", name: spec.name, limit_s: job.time_limit_s });
  }

  case_done(caseJson) {
    this.post({ type: "case", case: JSON.parse(caseJson) });
  }
}
