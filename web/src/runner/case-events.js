// What every hub tells the main thread while the judge runs: a case's ranks started (the
// time-limit watchdog starts then), a case was graded.
export class CaseEventHub {
  constructor(post) {
    this.post = post;
  }

  ranks_started(name, limitS) {
    this.post({ type: "case-start", name, limit_s: limitS });
  }

  case_done(caseJson) {
    this.post({ type: "case", case: JSON.parse(caseJson) });
  }
}
