/*
 * philosophers-N of weft's bundled models (internal/models/philosophers.go)
 * in Promela, for SPIN: spin -DN=4 -a philosophers.pml. Each weft transition
 * is one Promela step (a d_step where it tests and sets), and the state
 * holds what weft's does: a program counter per philosopher and an owner
 * per fork (0 when free, i+1 when held by philosopher i). A philosopher
 * that has finished blocks at an end label instead of terminating: a
 * Promela process that runs off its end dies in a step of its own, which
 * weft's threads do not take.
 */
#ifndef N
#define N 3
#endif

byte fork[N];

active [N] proctype phil()
{
	d_step { fork[_pid] == 0 -> fork[_pid] = _pid + 1 };
	d_step { fork[(_pid + 1) % N] == 0 -> fork[(_pid + 1) % N] = _pid + 1 };
	fork[_pid] = 0;
	fork[(_pid + 1) % N] = 0;
end:
	false
}
