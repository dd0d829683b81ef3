// The layout offer shared by convolution.cpp and inner_product.cpp (the policy
// is described at the top of convolution.cpp): primitives are created with
// format_tag::any; an input already in a non-plain layout is offered to oneDNN
// as it is and used only when oneDNN runs it with the same implementation as
// for `any`.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "tensor.hpp"

namespace cpuframe {

inline memory::desc any_md(const memory::dims& d,
                           memory::data_type dt = memory::data_type::f32) {
    return memory::desc(d, dt, memory::format_tag::any);
}

inline bool is_any(const memory::desc& md) {
    return md.get_format_kind() == memory::format_kind::any;
}

// The desc to offer oneDNN for t where the primitive computes in dt: t's own
// layout when it is not plain (and its dims and data type fit), else `any`.
inline memory::desc offered_md(const TensorPtr& t, const memory::dims& d,
                               memory::data_type dt = memory::data_type::f32) {
    if (t && t->desc().get_dims() == d && !t->is_plain() && t->dtype() == dt) return t->desc();
    return any_md(d, dt);
}

// The memory to pass for weight W where a primitive wants `want`: when the
// data types differ (mixed_bf16: a float32 master read as bf16), the bf16
// copy of W is made once and reused until W is written (converted_for).
inline memory weight_memory(const TensorPtr& W, const memory::desc& want,
                            std::vector<TensorPtr>& keep) {
    if (W->dtype() == want.get_data_type()) return arg_memory(W, want, keep);
    keep.push_back(W->converted_for(want));
    return keep.back()->mem();
}

// Whether a plain parameter may adopt, in place, the layout `want` a
// primitive asks for: only within its own data type (a float32 master weight
// read by a bf16 primitive stays float32; the primitive's reorder converts).
inline bool may_adopt(const TensorPtr& w, const memory::desc& want) {
    return w->is_plain() && !(w->desc() == want) && w->dtype() == want.get_data_type();
}

// A desc as primitive-key text ("any" or desc_key).
inline std::string md_text(const memory::desc& md) { return is_any(md) ? "any" : desc_key(md); }

template <class PD>
bool same_impl(const PD& a, const PD& b) {
    return std::strcmp(a.impl_info_str(), b.impl_info_str()) == 0;
}

// The primitive desc to create: make(w) for the first w of `tries` (layouts
// offered, best first) that oneDNN can run (make may return an empty desc)
// with the same implementation as `any`; else `any` itself.
template <class PD, class Make>
PD offered_or_any(const PD& any, const std::vector<memory::desc>& tries, Make&& make) {
    for (const memory::desc& w : tries) {
        PD offered = make(w);
        if (offered && same_impl(offered, any)) return offered;
    }
    return any;
}

}  // namespace cpuframe
