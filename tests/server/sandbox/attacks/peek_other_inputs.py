# attack: skip communicating: find every rank's input in the judge's own objects and files and add them up
# expect: wrong_answer
import gc
import glob
import json
import sys

import torch
import torch.distributed as dist


def _inputs_in(obj, world):
    if isinstance(obj, dict) and isinstance(obj.get("inputs"), list) and len(obj["inputs"]) == world:
        return obj["inputs"]
    return None


def _find(world):
    frame = sys._getframe(1)
    while frame is not None:  # the judge's frames: a `case` with every rank's inputs?
        for value in frame.f_locals.values():
            found = _inputs_in(value, world)
            if found:
                return found
        frame = frame.f_back
    for obj in gc.get_objects():  # anything the judge left in this process
        found = _inputs_in(obj, world)
        if found:
            return found
    for pattern in ("/dev/shm/cjudge-*/", "/tmp/cjudge-*/"):  # the case's files
        for job_dir in glob.glob(pattern):
            files = sorted(glob.glob(job_dir + "input.*")) or glob.glob(job_dir + "case.json")
            if len(files) == world:
                return [json.loads(open(f).read()) for f in files]
            if files:
                found = _inputs_in(json.loads(open(files[0]).read()), world)
                if found:
                    return found
    return None


def ring_all_reduce(t):
    found = _find(dist.get_world_size())
    if found is None:
        return
    total = torch.zeros_like(t)
    for tensor in found:
        total += torch.tensor(tensor["data"], dtype=t.dtype).reshape(t.shape)
    t.copy_(total)
