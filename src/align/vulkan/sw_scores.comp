// Smith-Waterman-Gotoh scores of one query against many subjects, one
// invocation per subject (inter-sequence). An invocation sweeps its subject
// in blocks of kColumns columns held in registers; for each block it runs
// down every query row, and the block's last column (H and the horizontal
// gap state) passes to the next block through a scratch word per row.
//
// PACKED (the first pass): the scratch word holds both values as 16-bit
// lanes of one uint, saturated at 65535, so no 16-bit storage or arithmetic
// feature is needed. A subject whose best score stays below 65535 never
// stored a saturated value, so its score is exact; one that reaches 65535
// reports 65535 and the host rescores it exactly in the 32-bit build of this
// shader (no PACKED: two ints a row).
//
// The gap states start at 0 instead of minus infinity, and the horizontal
// one is stored clamped at 0: with non-negative penalties the positive part
// of each gap state depends only on the positive parts before it, and H
// takes the maximum with 0, so every H is the reference's.
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;

const uint kColumns = 16;  // columns per block; 4 residue codes per word
const uint kMatrixSide = 32;

// Per row, the query residue's row in the matrix (code * kMatrixSide).
layout(std430, binding = 0) readonly buffer Query { uint query_rows[]; };
// The subjects' codes, 4 to a word, each subject padded with code 31 to
// whole blocks.
layout(std430, binding = 1) readonly buffer Residues { uint residues[]; };
// Per subject: its first word in residues, its number of blocks.
layout(std430, binding = 2) readonly buffer Extents { uvec2 extents[]; };
// 32 x 32 scores; rows and columns past the alphabet hold a score so low
// that a padding column never raises a score.
layout(std430, binding = 3) readonly buffer Matrix { int matrix[]; };
// The subject each invocation scores: order[first + invocation].
layout(std430, binding = 4) readonly buffer Order { uint order[]; };
#ifdef PACKED
layout(std430, binding = 5) buffer Scratch { uint scratch[]; };
#else
layout(std430, binding = 5) buffer Scratch { ivec2 scratch[]; };
#endif
layout(std430, binding = 6) writeonly buffer Scores { int scores[]; };

layout(push_constant) uniform Arguments {
  uint query_length;
  uint first;
  uint count;  // invocations of this dispatch, also the scratch's row stride
  int open_extend;
  int extend;
} args;

shared int scores_of[kMatrixSide * kMatrixSide];

void main() {
  for (uint k = gl_LocalInvocationID.x; k < kMatrixSide * kMatrixSide; k += gl_WorkGroupSize.x) {
    scores_of[k] = matrix[k];
  }
  barrier();
  const uint slot = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256 + gl_LocalInvocationID.x;
  if (slot >= args.count) return;
  const uint subject = order[args.first + slot];
  const uvec2 extent = extents[subject];
  const int open_extend = args.open_extend;
  const int extend = args.extend;
  int best = 0;
  for (uint block = 0; block < extent.y; ++block) {
    uint codes[kColumns];
    [[unroll]] for (uint w = 0; w < kColumns / 4; ++w) {
      const uint word = residues[extent.x + block * (kColumns / 4) + w];
      [[unroll]] for (uint b = 0; b < 4; ++b) codes[4 * w + b] = (word >> (8 * b)) & 0xFFu;
    }
    int up[kColumns];        // H of the row above
    int vertical[kColumns];  // the vertical gap state of the row above
    [[unroll]] for (uint c = 0; c < kColumns; ++c) {
      up[c] = 0;
      vertical[c] = 0;
    }
    int diagonal_next = 0;  // H(i - 1, first column - 1)
    for (uint i = 0; i < args.query_length; ++i) {
      const uint row = query_rows[i];
      const uint at = i * args.count + slot;
      int left = 0;  // H(i, first column - 1)
      int horizontal = 0;
      if (block != 0) {
#ifdef PACKED
        const uint word = scratch[at];
        left = int(word & 0xFFFFu);
        horizontal = int(word >> 16);
#else
        const ivec2 carried = scratch[at];
        left = carried.x;
        horizontal = carried.y;
#endif
      }
      int diagonal = diagonal_next;
      diagonal_next = left;
      [[unroll]] for (uint c = 0; c < kColumns; ++c) {
        vertical[c] = max(up[c] - open_extend, vertical[c] - extend);
        horizontal = max(left - open_extend, horizontal - extend);
        const int h = max(max(diagonal + scores_of[row + codes[c]], 0), max(vertical[c], horizontal));
        diagonal = up[c];
        up[c] = h;
        left = h;
        best = max(best, h);
      }
#ifdef PACKED
      scratch[at] = uint(min(left, 65535)) | (uint(clamp(horizontal, 0, 65535)) << 16);
#else
      scratch[at] = ivec2(left, horizontal);
#endif
    }
  }
#ifdef PACKED
  scores[subject] = min(best, 65535);
#else
  scores[subject] = best;
#endif
}
