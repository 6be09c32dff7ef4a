-- Lasker's Nim ("Nim or not Nim?", HDU 3032): a move takes any number of stones from the
-- heap, or splits it into two non-empty heaps (a sum: the two heaps stand side by side).
-- sgtab build lua:examples/games/lasker.lua:N=5000
N = N or 1024
shape = N

function moves(n)
  local out = {}
  for rest = 0, n - 1 do out[#out + 1] = rest end
  for a = 1, n // 2 do out[#out + 1] = sum(a, n - a) end
  return out
end
