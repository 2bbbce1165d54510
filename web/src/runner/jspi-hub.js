// Ranks as suspended stacks in this worker's one Pyodide (JSPI). For each case the hub starts
// every rank with callPromising on the case's Python object; the Scheduler resumes them. The
// judge itself runs the same way, so it waits for run_case like the CLI waits for processes.
import { CaseEventHub } from "./case-events.js";
import { Scheduler } from "./coordinator.js";

export class JspiHub extends CaseEventHub {
  /** Run the Python `judge(...args, hub)` on a stack of its own. */
  judge(judge, ...args) {
    return judge.callPromising(...args, this);
  }

  /** Run every rank of `pyCase` (a cjudge_web BrowserCase) until the case is over and they unwound. */
  async run_case(pyCase, jobJson, name, limitS) {
    const scheduler = new Scheduler(pyCase);
    const runRank = pyCase.run_rank;
    this.ranks_started(name, limitS);
    pyCase.start();
    try {
      const ranks = [];
      for (let rank = 0; rank < pyCase.world; rank++) {
        ranks.push(runRank.callPromising(rank, scheduler).then(() => scheduler.step()));
      }
      await Promise.all(ranks);
    } finally {
      runRank.destroy();
    }
  }
}
