// What every hub tells the main thread while the judge runs: a case started (for the time-limit
// watchdog), a case was graded.
export class ProgressHub {
  constructor(post) {
    this.post = post;
  }

  case_started(name, limitS) {
    this.post({ type: "case-start", name, limit_s: limitS });
  }

  case_done(caseJson) {
    this.post({ type: "case", case: JSON.parse(caseJson) });
  }
}
