-- Take at most half: a move takes from 1 to n // 2 stones from a heap of n.
-- sgtab build lua:examples/games/half.lua:N=100000
N = N or 1000
shape = N

function moves(n)
  local out = {}
  for take = 1, n // 2 do out[#out + 1] = n - take end
  return out
end
