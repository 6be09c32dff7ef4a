-- E&D (eat and divide): two heaps; a move eats one heap and divides the other into two
-- non-empty heaps. Position (i, j) is the heaps of i + 1 and j + 1 stones.
-- sgtab build lua:examples/games/ed.lua:N=256
N = N or 64
shape = {N, N}

-- Both new heaps are smaller than the pair was: i + j goes down.
function rank(i, j) return i + j end

function moves(i, j)
  local out = {}
  for _, heap in ipairs({i + 1, j + 1}) do
    for a = 1, heap - 1 do out[#out + 1] = {a - 1, heap - a - 1} end
  end
  return out
end
