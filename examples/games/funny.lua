-- A Funny Stone Game (UVa 1378), one stone at a time: position r is a stone with r piles to
-- its right. A move takes the stone away and puts two stones on piles further right (the
-- same pile allowed): two stones side by side, a sum.
-- sgtab build lua:examples/games/funny.lua:N=32
N = N or 32
shape = N

function moves(r)
  local out = {}
  for j = 0, r - 1 do
    for k = j, r - 1 do out[#out + 1] = sum(j, k) end
  end
  return out
end
