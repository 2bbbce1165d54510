// Ranks as suspended stacks in this worker's one Pyodide (JSPI). For each case the hub starts
// every rank with callPromising; a rank's blocking call is run_sync on a coordinator promise.
// The judge itself runs the same way, so it waits for run_case like the CLI waits for processes.
import { Coordinator } from "./coordinator.js";
import { ProgressHub } from "./progress.js";

export class JspiHub extends ProgressHub {
  /**
   * @param rankMain  Python callable (job_json, spec_json, rank, coordinator) -> rank result JSON
   * @param post  where progress messages go (the worker's postMessage)
   */
  constructor(rankMain, post) {
    super(post);
    this.rankMain = rankMain;
  }

  /** Run the Python `judge(...args, hub)` on a stack of its own. */
  judge(judge, ...args) {
    return judge.callPromising(...args, this);
  }

  /**
   * Run every rank of one case (`specsJson`: a spec JSON per rank); answers what each rank
   * reported, their states at the end, and why they stopped.
   */
  async run_case(jobJson, specsJson) {
    const specs = JSON.parse(specsJson);
    const spec = JSON.parse(specs[0]);
    const started = performance.now();
    let stop = null;
    const coordinator = new Coordinator(spec.world_size, () => {
      stop = "deadlock";
      coordinator.abortBlocked();
    });
    this.ranks_started(JSON.parse(jobJson), spec);
    const ranks = [];
    for (let rank = 0; rank < spec.world_size; rank++) {
      ranks.push(this.rankMain.callPromising(jobJson, specs[rank], rank, coordinator));
    }
    const results = await Promise.all(ranks);
    const { states, waiting } = coordinator;
    return JSON.stringify({ results, states, waiting, stop, wall_ms: performance.now() - started });
  }
}
