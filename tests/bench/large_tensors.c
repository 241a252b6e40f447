/* The roofline of tests/bench/large_tensors.sh: the same three jobs as
 * large_tensors.tfg, each one pass over memory, written by hand in C and
 * compiled by the benchmark with -O3 -march=native -fopenmp, split over
 * THREADS threads. Output buffers are written once before timing, as a
 * framework that reuses its buffers would have them. Prints Gelem/s.
 * Usage: large_tensors N REPS THREADS */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static float chain(float x) {
  float y = ((x * 1.5f + 0.25f) * x - 0.5f) * 0.75f + x;
  return y * y + 1.0f;
}

static volatile double sink;

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: large_tensors N REPS THREADS\n");
    return 2;
  }
  const long n = atol(argv[1]);
  const int reps = atoi(argv[2]);
  omp_set_num_threads(atoi(argv[3]));
  float* x = aligned_alloc(64, n * sizeof(float));
  float* b = aligned_alloc(64, n * sizeof(float));
  float* y = aligned_alloc(64, n * sizeof(float));
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    x[i] = (float)(i % 1000) / 1000.0f;
    b[i] = 1.0f - x[i];
    y[i] = 0;
  }
  double best_chain = 1e9, best_add = 1e9, best_sum = 1e9;
  for (int r = 0; r < reps + 3; ++r) {
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) y[i] = chain(x[i]);
    double t1 = now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) y[i] = x[i] + b[i];
    double t2 = now();
    float s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)
    for (long i = 0; i < n; ++i) s += chain(x[i]);
    double t3 = now();
    sink = s + y[n / 2];
    if (r < 3) continue;
    if (t1 - t0 < best_chain) best_chain = t1 - t0;
    if (t2 - t1 < best_add) best_add = t2 - t1;
    if (t3 - t2 < best_sum) best_sum = t3 - t2;
  }
  printf("chain %.4f\nadd %.4f\nsum %.4f\n", n / best_chain / 1e9, n / best_add / 1e9, n / best_sum / 1e9);
  free(x);
  free(b);
  free(y);
  return 0;
}
