-- Taking stones 1/3/9 (Nowcoder 122 B): a move takes 1, 3 or 9 stones from the heap.
-- sgtab build lua:examples/games/stones139.lua:N=1000000
N = N or 1024
shape = N

-- The options as values, as many as the heap allows; a position with none returns {}.
function moves(n)
  if n >= 9 then return n - 1, n - 3, n - 9 end
  if n >= 3 then return n - 1, n - 3 end
  if n >= 1 then return n - 1 end
  return {}
end
