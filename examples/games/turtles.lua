-- Turning Turtles, a coin-turning game: W coins in a row, bit i set when coin i shows heads.
-- A move turns one head to tails and may also turn one coin to its left (a lower bit) either
-- way. Every move lowers the row as a number, so no rank is needed.
-- sgtab build lua:examples/games/turtles.lua:W=16
W = W or 12
shape = 1 << W

function moves(row)
  local out = {}
  for i = 0, W - 1 do
    if row >> i & 1 == 1 then
      local turned = row ~ (1 << i)
      out[#out + 1] = turned
      for j = 0, i - 1 do out[#out + 1] = turned ~ (1 << j) end
    end
  end
  return out
end
