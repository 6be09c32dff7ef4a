-- One row of the chess game (HDU 5724): W cells, bit i set when cell i holds a chip, bit 0
-- the rightmost cell. A move takes one chip to the first empty cell to its right, jumping over
-- the chips between; a chip with no empty cell to its right cannot move.
-- sgtab build lua:examples/games/chessrow.lua:W=20
W = W or 16
shape = 1 << W

function moves(row)
  local out = {}
  for i = 1, W - 1 do
    if row >> i & 1 == 1 then
      for j = i - 1, 0, -1 do
        if row >> j & 1 == 0 then
          out[#out + 1] = row ~ (1 << i) ~ (1 << j)
          break
        end
      end
    end
  end
  return out
end
