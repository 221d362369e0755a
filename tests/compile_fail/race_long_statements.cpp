// A race between two long statements on streams with long names: the
// message shortens the statement text (ending it in "...") so that the
// buffer, both statements and the whole fix still fit in the message.
// expect: cross_stream_data_race<
// expect: race \(write-after-write\) on buffer 'activations'
// expect: statement #0 `activations = [^`]*\.\.\.` on stream 'prefetch_stream_with_a_long_name' writes it
// expect: statement #1 `activations = [^`]*\.\.\.` on stream 'compute_stream_with_a_long_name' writes it
// expect: Fix: call `compute_stream_with_a_long_name\.wait_stream\(prefetch_stream_with_a_long_name\)` between #0 and #1
// expect: or use sd::program<sd::automatic>\(\.\.\.\)("|\}), [0-9]+
// expect-not: \[\.\.\.\]
// expect-nvcc: cross_stream_data_race<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto weights = p.input<float>("weights");
  auto gradients = p.input<float>("gradients");
  auto activations = p.output<float>("activations");
  auto prefetch = p.stream("prefetch_stream_with_a_long_name");
  auto compute = p.stream("compute_stream_with_a_long_name");
  sd::with_stream(prefetch, [&] {
    activations = sd::tanh(weights * 0.5f + gradients * 0.25f) * sd::sigmoid(weights - gradients) +
                  sd::exp(weights) / (sd::abs(gradients) + 1.0f);
  });
  sd::with_stream(compute, [&] {
    activations = sd::relu(weights * gradients + 1.0f) -
                  sd::sqrt(sd::abs(weights) + sd::abs(gradients)) * sd::cos(weights) * sd::sin(gradients);
  });
});
