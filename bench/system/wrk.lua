-- The whole-system bench's wrk script (bench/system/wrk.ts writes the data file and reads the line
-- done() prints). `wrk -s wrk.lua <url> -- <data.lua>`: the data file returns a list of request lists;
-- wrk thread i sends list i in turn, forever, over all of its connections. One list per thread with
-- one connection each makes each connection one client (a customer with its own cart).

local lists = nil
local next_thread = 0

function setup(thread)
  next_thread = next_thread + 1
  thread:set("list", next_thread)
end

function init(args)
  lists = dofile(args[1])
  prepared = {}
  for i, r in ipairs(lists[list]) do
    prepared[i] = wrk.format(r.method, r.path, r.headers, r.body)
  end
  sent = 0
end

function request()
  sent = sent + 1
  return prepared[(sent - 1) % #prepared + 1]
end

-- One JSON line after wrk's own text; latencies in microseconds. errors.status counts answers >= 400.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'wrk-json {"requests":%d,"durationUs":%d,"p50":%d,"p99":%d,"max":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.timeout, e.status))
end
