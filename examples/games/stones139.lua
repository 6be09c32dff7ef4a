-- Taking stones 1/3/9 (Nowcoder 122 B): a move takes 1, 3 or 9 stones from the heap.
-- sgtab build lua:examples/games/stones139.lua:N=1000000
N = N or 1024
shape = N

function moves(n)
  local out = {}
  for _, take in ipairs({1, 3, 9}) do
    if take <= n then out[#out + 1] = n - take end
  end
  return out
end
