/*
 * lastzero-N of weft's bundled models (internal/models/lastzero.go) in
 * Promela, for SPIN: spin -DN=4 -a lastzero.pml. Thread 0 searches array
 * backwards for its last zero, reading one cell a step; writer j (1..N)
 * reads array[j-1] in one step and writes array[j] = r + 1 in the next.
 * The state holds what weft's does: the array, thread 0's index (where it
 * found zero once it has), each writer's program counter and the value it
 * read. Threads that have finished block at an end label instead of
 * terminating: a Promela process that runs off its end dies in a step of
 * its own, which weft's threads do not take. Thread 0 is declared first,
 * so it is process 0 and writer j is process j.
 */
#ifndef N
#define N 3
#endif

byte array[N + 1];

active proctype zero()
{
	byte i = N;
	do
	:: d_step { array[i] != 0 -> i-- }
	:: array[i] == 0 -> break
	od;
end:
	false
}

active [N] proctype writer()
{
	byte r;
	r = array[_pid - 1];
	array[_pid] = r + 1;
end:
	false
}
