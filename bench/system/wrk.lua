-- The whole-system bench's wrk script (bench/system/wrk.ts writes the data file and reads the line
-- done() prints). `wrk -s wrk.lua <url> -- <data.lua> [rotate]`: the data file returns a list of
-- request lists. Without `rotate`, wrk thread i sends list i in turn, forever, over all of its
-- connections. With `rotate` (one thread), each list is a client (a customer with its own cart) and
-- each request is the next client's next one, so many clients share a few connections: a thread per
-- client would cost wrk more than the answers it measures.

local lists = nil
local next_thread = 0

function setup(thread)
  next_thread = next_thread + 1
  thread:set("list", next_thread)
end

local function format(requests)
  local out = {}
  for i, r in ipairs(requests) do
    out[i] = wrk.format(r.method, r.path, r.headers, r.body)
  end
  return out
end

function init(args)
  lists = dofile(args[1])
  rotate = args[2] == "rotate"
  clients = {}
  sent = {}
  if rotate then
    for c, requests in ipairs(lists) do
      clients[c] = format(requests)
      sent[c] = 0
    end
  else
    clients[1] = format(lists[list])
    sent[1] = 0
  end
  turn = 0
end

function request()
  turn = turn % #clients + 1
  local mine = clients[turn]
  sent[turn] = sent[turn] + 1
  return mine[(sent[turn] - 1) % #mine + 1]
end

-- One JSON line after wrk's own text; latencies in microseconds. errors.status counts answers >= 400.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'wrk-json {"requests":%d,"durationUs":%d,"p50":%d,"p99":%d,"max":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.timeout, e.status))
end
