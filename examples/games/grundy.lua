-- Grundy's game: a move splits a heap into two unequal non-empty heaps.
-- sgtab build lua:examples/games/grundy.lua:N=1000
N = N or 1000
shape = N

function moves(n)
  local out = {}
  for a = 1, (n - 1) // 2 do out[#out + 1] = sum(a, n - a) end
  return out
end
