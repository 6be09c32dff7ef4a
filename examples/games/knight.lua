-- A knight on an N×N board that may only move toward the corner (0, 0): two squares one way
-- and one the other, always lowering x + y. A 2-D game: positions are squares (x, y).
-- sgtab build lua:examples/games/knight.lua:N=64
N = N or 8
shape = {N, N}

-- Every move lowers x + y: the squares of one diagonal are computed at once.
function rank(x, y) return x + y end

function moves(x, y)
  local out = {}
  for _, d in ipairs({{-2, -1}, {-2, 1}, {-1, -2}, {1, -2}}) do
    local a, b = x + d[1], y + d[2]
    if a >= 0 and b >= 0 and a < N and b < N then out[#out + 1] = {a, b} end
  end
  return out
end
