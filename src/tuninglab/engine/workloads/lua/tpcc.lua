-- tpcc.lua: a TPC-C-like workload, written from the TPC-C specification (revision 5.11): its
-- nine tables, its population (clause 4.3) and its five transactions (clause 2) in its mix.
-- Not a TPC-C result: there are no terminals, keying or think times; each sysbench thread
-- runs transactions back to back against a home warehouse drawn at random per transaction.
--
--   sysbench tpcc.lua --mysql-db=tpcc --warehouses=W create                  (one thread)
--   sysbench tpcc.lua --mysql-db=tpcc --warehouses=W --threads=T prepare     (parallel load)
--   sysbench tpcc.lua --mysql-db=tpcc --warehouses=W [--active-warehouses=N] \
--       --mysql-ignore-errors=1213,1205,1020 --report-interval=1 run
--   sysbench tpcc.lua --mysql-db=tpcc cleanup
--
-- The database must exist (CREATE DATABASE tpcc). --active-warehouses=N draws the home
-- warehouses from 1..N only (the small, CPU-bound shape); remote ones still come from 1..W.
--
-- Output. sysbench's own per-second line and summary are printed exactly as sysbench prints
-- them; besides them, one line a second and one at the end (after sysbench's summary):
--
--   [ 1s ] tpcc: new_order 45 3.10ms payment 43 2.00ms order_status 4 0.90ms delivery 4 5.00ms stock_level 4 1.20ms rollbacks 0 retries 0 deadlocks 0
--   tpcc total: new_order 1234 3.10ms payment ... stock_level 51 1.20ms rollbacks 12 retries 3 deadlocks 1
--
-- For each transaction type: how many finished (in that second; in the whole run for the
-- total), new-orders rolled back on purpose included, and the 95th percentile of their
-- latency in ms, retries included (log-spaced buckets: within 4%). rollbacks: the new-orders
-- rolled back on purpose (an unused item, 1%). retries: transactions rolled back and run again
-- after a deadlock (1213), a lock wait timeout (1205) or 1020; these reach the script only if
-- sysbench is told to ignore them (--mysql-ignore-errors, whose default is 1213,1020,1205).
-- deadlocks: those of the retries that a deadlock (1213) caused.

local ffi = require("ffi")
local bit = require("bit")

-- Bump when the tables or their contents change: the Python side reloads an older dataset.
SCHEMA_VERSION = 1

sysbench.cmdline.options = {
   warehouses = {"Number of warehouses: the scale W, a whole number >= 1", 1},
   active_warehouses = {"Home warehouses of the transactions: 1..N (0: all W)", 0},
   -- The engine passes every script the dataset's size; W is this one's.
   tables = {"Ignored: the script has its own nine tables", 1},
   table_size = {"Ignored: --warehouses sets the size", 0},
}

local format, floor, rand = string.format, math.floor, sysbench.rand.uniform

local TRANSACTIONS = {"new_order", "payment", "order_status", "delivery", "stock_level"}
local MIX = {45, 88, 92, 96, 100}   -- cumulative percentages: 45 43 4 4 4 (clause 5.2.3)
local RETRY = {[1213] = true, [1205] = true, [1020] = true}

-- Options ------------------------------------------------------------------------------------

local function whole(name, min)
   local value = sysbench.opt[name]
   if value ~= floor(value) or value < min then
      error(format("--%s=%s: expected a whole number >= %d", name:gsub("_", "-"),
                   tostring(value), min) .. (name == "warehouses" and
                   " (the number of warehouses)" or ""), 0)
   end
   return value
end

-- (W, N): the scale and the number of home warehouses; stops with a message if invalid.
local function scale()
   local w, active = whole("warehouses", 1), whole("active_warehouses", 0)
   if active > w then
      error(format("--active-warehouses=%d: more than --warehouses=%d", active, w), 0)
   end
   return w, active == 0 and w or active
end

-- Schema -------------------------------------------------------------------------------------

local ADDRESS = "%s_street_1 VARCHAR(20), %s_street_2 VARCHAR(20), %s_city VARCHAR(20), " ..
   "%s_state CHAR(2), %s_zip CHAR(9)"

local function address_columns(p)
   return format(ADDRESS, p, p, p, p, p)
end

-- Clause 1.3, in the order the loader writes the columns; no foreign keys (clause 1.4.4 lets
-- them be left out, and they would slow the load).
local SCHEMA = {
   {"warehouse", "w_id INT NOT NULL, w_name VARCHAR(10), " .. address_columns("w") ..
       ", w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2), PRIMARY KEY (w_id)"},
   {"district", "d_id TINYINT NOT NULL, d_w_id INT NOT NULL, d_name VARCHAR(10), " ..
       address_columns("d") .. ", d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), " ..
       "d_next_o_id INT, PRIMARY KEY (d_w_id, d_id)"},
   {"customer", "c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id INT NOT NULL, " ..
       "c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), " .. address_columns("c") ..
       ", c_phone CHAR(16), c_since DATETIME, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), " ..
       "c_discount DECIMAL(4,4), c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), " ..
       "c_payment_cnt SMALLINT, c_delivery_cnt SMALLINT, c_data VARCHAR(500), " ..
       "PRIMARY KEY (c_w_id, c_d_id, c_id), KEY idx_customer_name (c_w_id, c_d_id, c_last, c_first)"},
   -- The spec gives history no key; an explicit one keeps InnoDB off its hidden row id.
   {"history", "h_c_id INT, h_c_d_id TINYINT, h_c_w_id INT, h_d_id TINYINT, h_w_id INT, " ..
       "h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24), " ..
       "h_id BIGINT NOT NULL AUTO_INCREMENT, PRIMARY KEY (h_id)"},
   {"new_orders", "no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, no_w_id INT NOT NULL, " ..
       "PRIMARY KEY (no_w_id, no_d_id, no_o_id)"},
   {"orders", "o_id INT NOT NULL, o_d_id TINYINT NOT NULL, o_w_id INT NOT NULL, o_c_id INT, " ..
       "o_entry_d DATETIME, o_carrier_id TINYINT NULL, o_ol_cnt TINYINT, o_all_local TINYINT, " ..
       "PRIMARY KEY (o_w_id, o_d_id, o_id), KEY idx_orders_customer (o_w_id, o_d_id, o_c_id, o_id)"},
   {"order_line", "ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, ol_w_id INT NOT NULL, " ..
       "ol_number TINYINT NOT NULL, ol_i_id INT, ol_supply_w_id INT, ol_delivery_d DATETIME NULL, " ..
       "ol_quantity TINYINT, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24), " ..
       "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)"},
   {"item", "i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), " ..
       "i_data VARCHAR(50), PRIMARY KEY (i_id)"},
   {"stock", "s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity SMALLINT, " ..
       "s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), " ..
       "s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), " ..
       "s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd DECIMAL(8,0), s_order_cnt SMALLINT, " ..
       "s_remote_cnt SMALLINT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id)"},
   -- loaded counts finished units (one per warehouse, one for item): a load that stopped
   -- half-way is seen as such. The C constants are the spec's NURand run-time constants,
   -- chosen once at create so that every loader and every run thread shares them.
   {"tpcc_meta", "id TINYINT NOT NULL, version INT NOT NULL, warehouses INT NOT NULL, " ..
       "loaded INT NOT NULL, c_last_load INT NOT NULL, c_last_run INT NOT NULL, " ..
       "c_id INT NOT NULL, c_ol_i_id INT NOT NULL, PRIMARY KEY (id)"},
}

local function existing_tables(con)
   local names = {}
   for i, t in ipairs(SCHEMA) do names[i] = "'" .. t[1] .. "'" end
   return tonumber(con:query_row(
      "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() " ..
         "AND table_name IN (" .. table.concat(names, ",") .. ")"))
end

-- The run-time C for last names must differ from the load's by 65..119, but not 96 or 112
-- (clause 2.1.6.1).
local function c_last_run(c_load)
   while true do
      local c = rand(0, 255)
      local delta = math.abs(c - c_load)
      if delta >= 65 and delta <= 119 and delta ~= 96 and delta ~= 112 then
         return c
      end
   end
end

-- A single-threaded command, so that parallel loaders never race to create tables.
function cmd_create()
   local w = scale()
   local con = sysbench.sql.driver():connect()
   if existing_tables(con) > 0 then
      error("the tpcc tables exist already: run the cleanup command first", 0)
   end
   for _, t in ipairs(SCHEMA) do
      con:query(format("CREATE TABLE %s (%s) ENGINE=InnoDB", t[1], t[2]))
   end
   local c_load = rand(0, 255)
   con:query(format("INSERT INTO tpcc_meta VALUES (1, %d, %d, 0, %d, %d, %d, %d)",
                    SCHEMA_VERSION, w, c_load, c_last_run(c_load), rand(0, 1023), rand(0, 8191)))
   con:disconnect()
end

function cleanup()
   local con = sysbench.sql.driver():connect()
   for i = #SCHEMA, 1, -1 do
      con:query("DROP TABLE IF EXISTS " .. SCHEMA[i][1])
   end
   con:disconnect()
end

-- The meta row, checked against this script and the options; stops with a message.
local function read_meta(con, w, need_loaded)
   if tonumber(con:query_row("SELECT COUNT(*) FROM information_schema.tables " ..
                                "WHERE table_schema = DATABASE() AND table_name = 'tpcc_meta'")) == 0 then
      error("no tpcc dataset in this database: run the create command, then prepare", 0)
   end
   local version, warehouses, loaded, c_load, c_run, c_id, c_ol_i_id = con:query_row(
      "SELECT version, warehouses, loaded, c_last_load, c_last_run, c_id, c_ol_i_id " ..
         "FROM tpcc_meta WHERE id = 1")
   version, warehouses, loaded = tonumber(version), tonumber(warehouses), tonumber(loaded)
   if version ~= SCHEMA_VERSION then
      error(format("the tpcc dataset is schema version %s, this script writes %d: " ..
                      "cleanup, create and prepare again", tostring(version), SCHEMA_VERSION), 0)
   end
   if warehouses ~= w then
      error(format("the tpcc dataset has %d warehouses but --warehouses=%d: " ..
                      "cleanup, create and prepare again", warehouses, w), 0)
   end
   if need_loaded and loaded ~= w + 1 then
      error(format("the tpcc dataset is not fully loaded (%d of %d units): " ..
                      "cleanup, create and prepare again", loaded, w + 1), 0)
   end
   return {c_load = tonumber(c_load), c_run = tonumber(c_run), c_id = tonumber(c_id),
           c_ol_i_id = tonumber(c_ol_i_id)}
end

-- Random data (clause 4.3.2) ------------------------------------------------------------------

local ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
local POOL_SIZE = 65536
local letters, digits

-- Random strings are slices of a random pool: one substring instead of a call per character
-- keeps the loader's CPU for the server.
local function pool(chars)
   local out = {}
   for i = 1, POOL_SIZE do
      local k = rand(1, #chars)
      out[i] = chars:sub(k, k)
   end
   return table.concat(out)
end

local function astring(min, max)
   local len = min == max and min or rand(min, max)
   local at = rand(1, POOL_SIZE - len + 1)
   return letters:sub(at, at + len - 1)
end

local function nstring(len)
   local at = rand(1, POOL_SIZE - len + 1)
   return digits:sub(at, at + len - 1)
end

local function random_data()
   letters, digits = letters or pool(ALNUM), digits or pool("0123456789")
end

-- NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x (clause 2.1.6)
local function nurand(a, x, y, c)
   return (bit.bor(rand(0, a), rand(x, y)) + c) % (y - x + 1) + x
end

local SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

-- The last name for a number 0..999: its three digits' syllables (clause 4.3.2.3).
local function last_name(n)
   return SYLLABLES[floor(n / 100) + 1] .. SYLLABLES[floor(n / 10) % 10 + 1] ..
      SYLLABLES[n % 10 + 1]
end

-- 10% of items and stock carry "ORIGINAL" at a random place in their data (clause 4.3.3.1).
local function data_field()
   local s = astring(26, 50)
   if rand(1, 10) ~= 1 then
      return s
   end
   local at = rand(1, #s - 7)
   return s:sub(1, at - 1) .. "ORIGINAL" .. s:sub(at + 8)
end

local function address()
   return format("'%s','%s','%s','%s','%s11111'", astring(10, 20), astring(10, 20),
                 astring(10, 20), astring(2, 2), nstring(4))
end

local function tax()
   return rand(0, 2000) / 10000
end

-- Loader (clause 4.3.3.1) ---------------------------------------------------------------------

-- Multi-row INSERTs of up to batch rows, each its own (autocommit) transaction; rows arrive in
-- primary key order, so InnoDB appends.
local function inserter(con, into, batch)
   local rows, n = {}, 0
   local self = {}
   function self.flush()
      if n > 0 then
         con:query("INSERT INTO " .. into .. " VALUES " .. table.concat(rows, ",", 1, n))
         n = 0
      end
   end
   function self.add(row)
      n = n + 1
      rows[n] = row
      if n >= batch then
         self.flush()
      end
   end
   return self
end

local function load_items(con)
   if tonumber(con:query_row("SELECT COUNT(*) FROM item")) > 0 then
      error("table item is loaded already: cleanup, create and prepare again", 0)
   end
   local items = inserter(con, "item", 1000)
   for i = 1, 100000 do
      items.add(format("(%d,%d,'%s',%.2f,'%s')", i, rand(1, 10000), astring(14, 24),
                       rand(100, 10000) / 100, data_field()))
   end
   items.flush()
end

local function load_stock(con, w)
   local stock = inserter(con, "stock", 1000)
   for i = 1, 100000 do
      stock.add(format("(%d,%d,%d,'%s','%s','%s','%s','%s','%s','%s','%s','%s','%s',0,0,0,'%s')",
                       i, w, rand(10, 100), astring(24, 24), astring(24, 24), astring(24, 24),
                       astring(24, 24), astring(24, 24), astring(24, 24), astring(24, 24),
                       astring(24, 24), astring(24, 24), astring(24, 24), data_field()))
   end
   stock.flush()
end

local function load_customers(con, w, d, c_load, now)
   local customers = inserter(con, "customer", 500)
   local history = inserter(con, "history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, " ..
                               "h_date, h_amount, h_data)", 1000)
   for c = 1, 3000 do
      -- The first 1,000 get every name once; the rest are drawn with NURand.
      local name = last_name(c <= 1000 and c - 1 or nurand(255, 0, 999, c_load))
      customers.add(format("(%d,%d,%d,'%s','OE','%s',%s,'%s','%s','%s',50000.00,%.4f," ..
                              "-10.00,10.00,1,0,'%s')",
                           c, d, w, astring(8, 16), name, address(), nstring(16), now,
                           rand(1, 10) == 1 and "BC" or "GC", rand(0, 5000) / 10000,
                           astring(300, 500)))
      history.add(format("(%d,%d,%d,%d,%d,'%s',10.00,'%s')", c, d, w, d, w, now,
                         astring(12, 24)))
   end
   customers.flush()
   history.flush()
end

-- A random permutation of 1..n (Fisher-Yates).
local function permutation(n)
   local p = {}
   for i = 1, n do p[i] = i end
   for i = n, 2, -1 do
      local j = rand(1, i)
      p[i], p[j] = p[j], p[i]
   end
   return p
end

-- 3,000 orders per district; the last 900 are new (no carrier, lines not delivered).
local function load_orders(con, w, d, now)
   local orders = inserter(con, "orders", 1000)
   local lines = inserter(con, "order_line", 2000)
   local new_orders = inserter(con, "new_orders", 1000)
   local customer = permutation(3000)
   for o = 1, 3000 do
      local delivered = o < 2101
      local count = rand(5, 15)
      orders.add(format("(%d,%d,%d,%d,'%s',%s,%d,1)", o, d, w, customer[o], now,
                        delivered and tostring(rand(1, 10)) or "NULL", count))
      for n = 1, count do
         lines.add(format("(%d,%d,%d,%d,%d,%d,%s,5,%s,'%s')", o, d, w, n, rand(1, 100000), w,
                          delivered and "'" .. now .. "'" or "NULL",
                          delivered and "0.00" or format("%.2f", rand(1, 999999) / 100),
                          astring(24, 24)))
      end
      if not delivered then
         new_orders.add(format("(%d,%d,%d)", o, d, w))
      end
   end
   orders.flush()
   lines.flush()
   new_orders.flush()
end

local function load_warehouse(con, w, meta, now)
   if con:query_row(format("SELECT w_id FROM warehouse WHERE w_id = %d", w)) then
      error(format("warehouse %d is loaded already: cleanup, create and prepare again", w), 0)
   end
   con:query(format("INSERT INTO warehouse VALUES (%d,'%s',%s,%.4f,300000.00)", w,
                    astring(6, 10), address(), tax()))
   local districts = {}
   for d = 1, 10 do
      districts[d] = format("(%d,%d,'%s',%s,%.4f,30000.00,3001)", d, w, astring(6, 10),
                            address(), tax())
   end
   con:query("INSERT INTO district VALUES " .. table.concat(districts, ","))
   load_stock(con, w)
   for d = 1, 10 do
      load_customers(con, w, d, meta.c_load, now)
      load_orders(con, w, d, now)
   end
end

-- Parallel: thread i loads warehouses i+1, i+1+T, ...; thread 0 also loads item.
function cmd_prepare()
   local w = scale()
   local con = sysbench.sql.driver():connect()
   local meta = read_meta(con, w, false)
   random_data()
   local now = os.date("%Y-%m-%d %H:%M:%S")
   local function done_unit()   -- counted only once the unit's rows are all committed
      con:query("UPDATE tpcc_meta SET loaded = loaded + 1 WHERE id = 1")
   end
   if sysbench.tid == 0 then
      load_items(con)
      done_unit()
   end
   for wid = sysbench.tid + 1, w, sysbench.opt.threads do
      load_warehouse(con, wid, meta, now)
      done_unit()
   end
   con:disconnect()
end

sysbench.cmdline.commands = {
   create = {cmd_create},
   prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
}

-- Counters shared by the worker threads and the reporter --------------------------------------
--
-- sysbench gives each worker thread, the reporter and the main thread their own Lua state,
-- all in one process. init() maps one anonymous block (zeroed, gone with the process: no file
-- to clean up) and leaves its address in an environment variable named with the process id;
-- every state finds it there. Each worker writes only its own slot, so there are no atomics;
-- the reporter sums the slots. A slot is SLOT doubles: the five counts, rollbacks, retries,
-- deadlocks, then a latency histogram per transaction type.

pcall(ffi.cdef, "void *mmap(void *addr, size_t length, int prot, int flags, int fd, long off);")
pcall(ffi.cdef, "int setenv(const char *name, const char *value, int overwrite);")
pcall(ffi.cdef, "int getpid(void);")
pcall(ffi.cdef, "typedef struct { long tv_sec; long tv_nsec; } tpcc_timespec;")
pcall(ffi.cdef, "int clock_gettime(int clk_id, tpcc_timespec *tp);")

local PROT_RW, MAP_PRIVATE_ANON, CLOCK_MONOTONIC = 3, 0x22, 1
local ROLLBACKS, RETRIES, DEADLOCKS, HIST = 5, 6, 7, 8
local NB, MIN_MS, RATIO = 420, 0.01, 1.04   -- buckets from 10 us to 140 s, 4% wide
local LOG_RATIO = math.log(RATIO)
local SLOT = HIST + #TRANSACTIONS * NB

local function shared(create)
   local key = "TPCC_SHM_" .. ffi.C.getpid()
   local address = os.getenv(key)
   if address then
      return ffi.cast("double *", ffi.cast("uintptr_t", tonumber(address)))
   end
   if not create then
      return nil
   end
   local size = SLOT * 8 * sysbench.opt.threads
   local p = ffi.C.mmap(nil, size, PROT_RW, MAP_PRIVATE_ANON, -1, 0)
   if ffi.cast("intptr_t", p) == -1 then
      error(format("cannot map %d bytes for the tpcc counters", size), 0)
   end
   -- User-space addresses fit in 47 bits: a Lua number holds them exactly.
   ffi.C.setenv(key, format("%.0f", tonumber(ffi.cast("uintptr_t", p))), 1)
   return ffi.cast("double *", p)
end

local timespec = ffi.new("tpcc_timespec")

local function now_ms()
   ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
   return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

local function bucket(ms)
   if ms <= MIN_MS then
      return 0
   end
   return math.min(NB - 1, floor(math.log(ms / MIN_MS) / LOG_RATIO))
end

-- Sums of all slots: a plain table indexed like a slot.
local function totals(shm)
   local sum = {}
   for i = 0, SLOT - 1 do sum[i] = 0 end
   for t = 0, sysbench.opt.threads - 1 do
      local base = t * SLOT
      for i = 0, SLOT - 1 do
         sum[i] = sum[i] + shm[base + i]
      end
   end
   return sum
end

-- The upper edge of the bucket holding the 95th percentile (from the histogram's own total,
-- which a worker may have updated a moment after its count).
local function p95(sum, k)
   local base, n = HIST + (k - 1) * NB, 0
   for b = 0, NB - 1 do n = n + sum[base + b] end
   local need, seen = math.ceil(n * 0.95), 0
   if n == 0 then
      return 0
   end
   for b = 0, NB - 1 do
      seen = seen + sum[base + b]
      if seen >= need then
         return MIN_MS * RATIO ^ (b + 1)
      end
   end
end

local function metrics_line(prefix, sum)
   local parts = {prefix}
   for k, name in ipairs(TRANSACTIONS) do
      parts[#parts + 1] = format("%s %d %.2fms", name, sum[k - 1], p95(sum, k))
   end
   parts[#parts + 1] = format("rollbacks %d retries %d deadlocks %d", sum[ROLLBACKS],
                              sum[RETRIES], sum[DEADLOCKS])
   return table.concat(parts, " ")
end

-- sysbench's own per-second line, exactly as its C code prints it: defining this hook replaces
-- that line, and sysbench.report_default() in 1.0.20 prints "err/s" without the colon.
local function report_default(stat)
   local seconds = stat.time_interval
   print(format("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) " ..
                   "lat (ms,%u%%): %4.2f err/s: %4.2f reconn/s: %4.2f",
                stat.time_total, stat.threads_running, stat.events / seconds,
                (stat.reads + stat.writes + stat.other) / seconds, stat.reads / seconds,
                stat.writes / seconds, stat.other / seconds, sysbench.opt.percentile,
                stat.latency_pct * 1000, stat.errors / seconds, stat.reconnects / seconds))
end

local previous   -- the reporter's last totals

function sysbench.hooks.report_intermediate(stat)
   report_default(stat)
   local shm = shared(false)
   if shm then
      local now, delta = totals(shm), {}
      if not previous then
         previous = {}
         for i = 0, SLOT - 1 do previous[i] = 0 end
      end
      for i = 0, SLOT - 1 do delta[i] = now[i] - previous[i] end
      previous = now
      print(metrics_line(format("[ %.0fs ] tpcc:", stat.time_total), delta))
   end
   io.stdout:flush()
end

-- No report_cumulative hook: it would replace sysbench's whole summary, which the engine
-- parses. done() runs after the summary, in the main state.
function done()
   local shm = shared(false)
   if shm then
      print(metrics_line("tpcc total:", totals(shm)))
      io.stdout:flush()
   end
end

-- Transactions (clause 2) ----------------------------------------------------------------------

local con, slot, meta, W, ACTIVE

function init()
   local w = scale()
   local c = sysbench.sql.driver():connect()
   read_meta(c, w, true)   -- once, before the threads: a wrong dataset stops the run here
   c:disconnect()
   shared(true)
end

function thread_init(thread_id)
   W, ACTIVE = scale()
   con = sysbench.sql.driver():connect()
   meta = read_meta(con, W, true)
   slot = shared(false) + thread_id * SLOT
end

function thread_done()
   con:disconnect()
end

local function other_warehouse(w)
   local o = rand(1, W - 1)
   return o >= w and o + 1 or o
end

-- A customer by last name (60%) or by number (clause 2.5.1.2, 2.6.1.2).
local function customer_input()
   if rand(1, 100) <= 60 then
      return nil, last_name(nurand(255, 0, 999, meta.c_run))
   end
   return nurand(1023, 1, 3000, meta.c_id), nil
end

-- The customer at position ceil(n/2) of those with that last name, by first name.
local function customer_by_name(w, d, last)
   local rs = con:query(format("SELECT c_id FROM customer WHERE c_w_id = %d AND c_d_id = %d " ..
                                  "AND c_last = '%s' ORDER BY c_first", w, d, last))
   local n = rs.nrows
   if n == 0 then
      return nil
   end
   local id
   for i = 1, math.ceil(n / 2) do id = rs:fetch_row()[1] end
   return tonumber(id)
end

local input = {}

function input.new_order(w)
   local t = {w = w, d = rand(1, 10), c = nurand(1023, 1, 3000, meta.c_id), items = {}}
   local count, rollback = rand(5, 15), rand(1, 100) == 1
   for n = 1, count do
      local item = {id = nurand(8191, 1, 100000, meta.c_ol_i_id), supply = w,
                    quantity = rand(1, 10)}
      if rollback and n == count then
         item.id = 100001   -- an unused item: the transaction must roll back (clause 2.4.1.4)
      end
      if W > 1 and rand(1, 100) == 1 then
         item.supply = other_warehouse(w)
      end
      t.items[n] = item
   end
   -- Stock rows locked in one order: fewer deadlocks between new-orders.
   table.sort(t.items, function(a, b)
                 return a.supply < b.supply or (a.supply == b.supply and a.id < b.id)
   end)
   return t
end

function input.payment(w)
   local t = {w = w, d = rand(1, 10), amount = rand(100, 500000) / 100}
   t.cw, t.cd = w, t.d
   if W > 1 and rand(1, 100) > 85 then
      t.cw, t.cd = other_warehouse(w), rand(1, 10)
   end
   t.c, t.last = customer_input()
   return t
end

function input.order_status(w)
   local t = {w = w, d = rand(1, 10)}
   t.c, t.last = customer_input()
   return t
end

function input.delivery(w)
   return {w = w, carrier = rand(1, 10)}
end

function input.stock_level(w)
   return {w = w, d = rand(1, 10), threshold = rand(10, 20)}
end

local profile = {}

-- Returns true when it rolled back on purpose.
function profile.new_order(t)
   local w, d = t.w, t.d
   con:query("BEGIN")
   local w_tax = con:query_row(format("SELECT w_tax FROM warehouse WHERE w_id = %d", w))
   local d_tax, o_id = con:query_row(format(
      "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = %d AND d_id = %d FOR UPDATE", w, d))
   o_id = tonumber(o_id)
   con:query(format("UPDATE district SET d_next_o_id = %d WHERE d_w_id = %d AND d_id = %d",
                    o_id + 1, w, d))
   local discount = con:query_row(format(
      "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = %d AND c_d_id = %d " ..
         "AND c_id = %d", w, d, t.c))
   local all_local = 1
   for _, item in ipairs(t.items) do
      if item.supply ~= w then all_local = 0 end
   end
   con:query(format("INSERT INTO orders VALUES (%d,%d,%d,%d,NOW(),NULL,%d,%d)", o_id, d, w, t.c,
                    #t.items, all_local))
   con:query(format("INSERT INTO new_orders VALUES (%d,%d,%d)", o_id, d, w))
   local lines, total = {}, 0
   for n, item in ipairs(t.items) do
      local price = con:query_row(format(
         "SELECT i_price, i_name, i_data FROM item WHERE i_id = %d", item.id))
      if price == nil then
         con:query("ROLLBACK")
         return true
      end
      local quantity, dist = con:query_row(format(
         "SELECT s_quantity, s_dist_%02d, s_data FROM stock WHERE s_i_id = %d AND s_w_id = %d " ..
            "FOR UPDATE", d, item.id, item.supply))
      quantity = tonumber(quantity)
      quantity = quantity >= item.quantity + 10 and quantity - item.quantity
         or quantity - item.quantity + 91
      con:query(format("UPDATE stock SET s_quantity = %d, s_ytd = s_ytd + %d, " ..
                          "s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + %d " ..
                          "WHERE s_i_id = %d AND s_w_id = %d", quantity, item.quantity,
                       item.supply == w and 0 or 1, item.id, item.supply))
      local amount = item.quantity * tonumber(price)
      total = total + amount
      lines[n] = format("(%d,%d,%d,%d,%d,%d,NULL,%d,%.2f,'%s')", o_id, d, w, n, item.id,
                        item.supply, item.quantity, amount, dist)
   end
   con:query("INSERT INTO order_line VALUES " .. table.concat(lines, ","))
   con:query("COMMIT")
   -- The order's total (clause 2.4.2.2) is computed as the spec asks, and not used further.
   total = total * (1 - tonumber(discount)) * (1 + tonumber(w_tax) + tonumber(d_tax))
   return false
end

function profile.payment(t)
   local w, d, cw, cd = t.w, t.d, t.cw, t.cd
   con:query("BEGIN")
   con:query(format("UPDATE warehouse SET w_ytd = w_ytd + %.2f WHERE w_id = %d", t.amount, w))
   local w_name = con:query_row(format(
      "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse " ..
         "WHERE w_id = %d", w))
   con:query(format("UPDATE district SET d_ytd = d_ytd + %.2f WHERE d_w_id = %d AND d_id = %d",
                    t.amount, w, d))
   local d_name = con:query_row(format(
      "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district " ..
         "WHERE d_w_id = %d AND d_id = %d", w, d))
   local c = t.c or customer_by_name(cw, cd, t.last)
   local credit, data = select(11, con:query_row(format(
      "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, " ..
         "c_phone, c_since, c_credit, c_data, c_credit_lim, c_discount, c_balance " ..
         "FROM customer WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d FOR UPDATE", cw, cd, c)))
   local set_data = ""
   if credit == "BC" then
      -- Bad credit: the payment's details go in front of C_DATA (clause 2.5.2.2).
      local entry = format("%d %d %d %d %d %.2f|", c, cd, cw, d, w, t.amount)
      set_data = format(", c_data = '%s'", (entry .. data):sub(1, 500))
   end
   con:query(format("UPDATE customer SET c_balance = c_balance - %.2f, " ..
                       "c_ytd_payment = c_ytd_payment + %.2f, c_payment_cnt = c_payment_cnt + 1%s " ..
                       "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d",
                    t.amount, t.amount, set_data, cw, cd, c))
   con:query(format("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, " ..
                       "h_amount, h_data) VALUES (%d,%d,%d,%d,%d,NOW(),%.2f,'%s    %s')",
                    c, cd, cw, d, w, t.amount, w_name, d_name))
   con:query("COMMIT")
end

-- Read-only: consistent reads, no locks (clause 2.6).
function profile.order_status(t)
   local w, d = t.w, t.d
   con:query("BEGIN")
   local c = t.c or customer_by_name(w, d, t.last)
   con:query_row(format("SELECT c_balance, c_first, c_middle, c_last FROM customer " ..
                           "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", w, d, c))
   local o_id = con:query_row(format(
      "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = %d AND o_d_id = %d " ..
         "AND o_c_id = %d ORDER BY o_id DESC LIMIT 1", w, d, c))
   if o_id then
      con:query(format("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d " ..
                          "FROM order_line WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id = %s",
                       w, d, o_id))
   end
   con:query("COMMIT")
end

-- All ten districts in one transaction; a district with no new order is skipped (2.7.4.2).
function profile.delivery(t)
   local w = t.w
   con:query("BEGIN")
   for d = 1, 10 do
      local o_id = con:query_row(format(
         "SELECT no_o_id FROM new_orders WHERE no_w_id = %d AND no_d_id = %d " ..
            "ORDER BY no_o_id LIMIT 1 FOR UPDATE", w, d))
      if o_id then
         local where = format("_w_id = %d AND %%s_d_id = %d AND %%s = %s", w, d, o_id)
         con:query("DELETE FROM new_orders WHERE no" .. format(where, "no", "no_o_id"))
         local orders = "o" .. format(where, "o", "o_id")
         local c = con:query_row("SELECT o_c_id FROM orders WHERE " .. orders .. " FOR UPDATE")
         con:query(format("UPDATE orders SET o_carrier_id = %d WHERE ", t.carrier) .. orders)
         local lines = "ol" .. format(where, "ol", "ol_o_id")
         con:query("UPDATE order_line SET ol_delivery_d = NOW() WHERE " .. lines)
         local amount = con:query_row("SELECT SUM(ol_amount) FROM order_line WHERE " .. lines)
         con:query(format("UPDATE customer SET c_balance = c_balance + %s, " ..
                             "c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = %d AND " ..
                             "c_d_id = %d AND c_id = %s", amount or "0", w, d, c))
      end
   end
   con:query("COMMIT")
end

-- Distinct items below the threshold among the district's last 20 orders (clause 2.8).
function profile.stock_level(t)
   local w, d = t.w, t.d
   con:query("BEGIN")
   local next_o = tonumber(con:query_row(format(
      "SELECT d_next_o_id FROM district WHERE d_w_id = %d AND d_id = %d", w, d)))
   con:query_row(format(
      "SELECT COUNT(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = %d AND " ..
         "s_i_id = ol_i_id WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id >= %d AND " ..
         "ol_o_id < %d AND s_quantity < %d", w, w, d, next_o - 20, next_o, t.threshold))
   con:query("COMMIT")
end

local function retryable(err)
   return type(err) == "table" and err.errcode == sysbench.error.RESTART_EVENT and
      RETRY[err.sql_errno]
end

-- Runs one transaction to the end, again from the start after a deadlock or lock wait
-- timeout (InnoDB rolls back only the statement on a timeout, so roll back the rest).
local function execute(run, t)
   while true do
      local ok, result = pcall(run, t)
      if ok then
         return result
      end
      pcall(con.query, con, "ROLLBACK")
      if not retryable(result) then
         error(result, 0)   -- sysbench restarts the event or stops, as for any script
      end
      slot[RETRIES] = slot[RETRIES] + 1
      if result.sql_errno == 1213 then
         slot[DEADLOCKS] = slot[DEADLOCKS] + 1
      end
   end
end

function event()
   local r, k = rand(1, 100), 1
   while r > MIX[k] do k = k + 1 end
   local name = TRANSACTIONS[k]
   local t = input[name](rand(1, ACTIVE))
   local start = now_ms()
   local rolled_back = execute(profile[name], t)
   local ms = now_ms() - start
   local base = HIST + (k - 1) * NB
   slot[base + bucket(ms)] = slot[base + bucket(ms)] + 1
   slot[k - 1] = slot[k - 1] + 1
   if rolled_back then
      slot[ROLLBACKS] = slot[ROLLBACKS] + 1
   end
end
