sim/CMakeFiles/vtick_sim.dir/simulation.cpp.o: \
 /work/main/sim/simulation.cpp /usr/include/stdc-predef.h \
 /work/main/sim/simulation.hpp /usr/include/c++/12/cstdint \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++config.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/os_defines.h \
 /usr/include/features.h /usr/include/features-time64.h \
 /usr/include/x86_64-linux-gnu/bits/wordsize.h \
 /usr/include/x86_64-linux-gnu/bits/timesize.h \
 /usr/include/x86_64-linux-gnu/sys/cdefs.h \
 /usr/include/x86_64-linux-gnu/bits/long-double.h \
 /usr/include/x86_64-linux-gnu/gnu/stubs.h \
 /usr/include/x86_64-linux-gnu/gnu/stubs-64.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/cpu_defines.h \
 /usr/include/c++/12/pstl/pstl_config.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h /usr/include/stdint.h \
 /usr/include/x86_64-linux-gnu/bits/libc-header-start.h \
 /usr/include/x86_64-linux-gnu/bits/types.h \
 /usr/include/x86_64-linux-gnu/bits/typesizes.h \
 /usr/include/x86_64-linux-gnu/bits/time64.h \
 /usr/include/x86_64-linux-gnu/bits/wchar.h \
 /usr/include/x86_64-linux-gnu/bits/stdint-intn.h \
 /usr/include/x86_64-linux-gnu/bits/stdint-uintn.h \
 /usr/include/c++/12/functional /usr/include/c++/12/bits/stl_function.h \
 /usr/include/c++/12/bits/move.h /usr/include/c++/12/type_traits \
 /usr/include/c++/12/backward/binders.h /usr/include/c++/12/new \
 /usr/include/c++/12/bits/exception.h /usr/include/c++/12/tuple \
 /usr/include/c++/12/bits/stl_pair.h /usr/include/c++/12/bits/utility.h \
 /usr/include/c++/12/bits/uses_allocator.h \
 /usr/include/c++/12/bits/invoke.h \
 /usr/include/c++/12/bits/functional_hash.h \
 /usr/include/c++/12/bits/hash_bytes.h /usr/include/c++/12/bits/refwrap.h \
 /usr/include/c++/12/bits/std_function.h /usr/include/c++/12/typeinfo \
 /usr/include/c++/12/bits/functexcept.h \
 /usr/include/c++/12/bits/exception_defines.h \
 /usr/include/c++/12/unordered_map /usr/include/c++/12/initializer_list \
 /usr/include/c++/12/bits/allocator.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++allocator.h \
 /usr/include/c++/12/bits/new_allocator.h \
 /usr/include/c++/12/bits/memoryfwd.h \
 /usr/include/c++/12/ext/alloc_traits.h \
 /usr/include/c++/12/bits/alloc_traits.h \
 /usr/include/c++/12/bits/stl_construct.h \
 /usr/include/c++/12/bits/stl_iterator_base_types.h \
 /usr/include/c++/12/bits/stl_iterator_base_funcs.h \
 /usr/include/c++/12/bits/concept_check.h \
 /usr/include/c++/12/debug/assertions.h \
 /usr/include/c++/12/bits/ptr_traits.h \
 /usr/include/c++/12/ext/numeric_traits.h \
 /usr/include/c++/12/bits/cpp_type_traits.h \
 /usr/include/c++/12/ext/type_traits.h \
 /usr/include/c++/12/ext/aligned_buffer.h \
 /usr/include/c++/12/bits/hashtable.h \
 /usr/include/c++/12/bits/hashtable_policy.h \
 /usr/include/c++/12/bits/stl_algobase.h \
 /usr/include/c++/12/bits/stl_iterator.h \
 /usr/include/c++/12/debug/debug.h \
 /usr/include/c++/12/bits/predefined_ops.h \
 /usr/include/c++/12/bits/enable_special_members.h \
 /usr/include/c++/12/bits/node_handle.h \
 /usr/include/c++/12/bits/unordered_map.h \
 /usr/include/c++/12/bits/range_access.h \
 /usr/include/c++/12/bits/erase_if.h /usr/include/c++/12/vector \
 /usr/include/c++/12/bits/stl_uninitialized.h \
 /usr/include/c++/12/bits/stl_vector.h \
 /usr/include/c++/12/bits/stl_bvector.h \
 /usr/include/c++/12/bits/vector.tcc /usr/include/c++/12/array \
 /usr/include/c++/12/compare /usr/include/c++/12/bits/stl_algo.h \
 /usr/include/c++/12/bits/algorithmfwd.h \
 /usr/include/c++/12/bits/stl_heap.h \
 /usr/include/c++/12/bits/stl_tempbuf.h \
 /usr/include/c++/12/bits/uniform_int_dist.h /usr/include/c++/12/cstdlib \
 /usr/include/stdlib.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/include/x86_64-linux-gnu/bits/waitflags.h \
 /usr/include/x86_64-linux-gnu/bits/waitstatus.h \
 /usr/include/x86_64-linux-gnu/bits/floatn.h \
 /usr/include/x86_64-linux-gnu/bits/floatn-common.h \
 /usr/include/x86_64-linux-gnu/bits/types/locale_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__locale_t.h \
 /usr/include/x86_64-linux-gnu/sys/types.h \
 /usr/include/x86_64-linux-gnu/bits/types/clock_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/clockid_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/time_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/timer_t.h /usr/include/endian.h \
 /usr/include/x86_64-linux-gnu/bits/endian.h \
 /usr/include/x86_64-linux-gnu/bits/endianness.h \
 /usr/include/x86_64-linux-gnu/bits/byteswap.h \
 /usr/include/x86_64-linux-gnu/bits/uintn-identity.h \
 /usr/include/x86_64-linux-gnu/sys/select.h \
 /usr/include/x86_64-linux-gnu/bits/select.h \
 /usr/include/x86_64-linux-gnu/bits/types/sigset_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__sigset_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_timeval.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_timespec.h \
 /usr/include/x86_64-linux-gnu/bits/pthreadtypes.h \
 /usr/include/x86_64-linux-gnu/bits/thread-shared-types.h \
 /usr/include/x86_64-linux-gnu/bits/pthreadtypes-arch.h \
 /usr/include/x86_64-linux-gnu/bits/atomic_wide_counter.h \
 /usr/include/x86_64-linux-gnu/bits/struct_mutex.h \
 /usr/include/x86_64-linux-gnu/bits/struct_rwlock.h /usr/include/alloca.h \
 /usr/include/x86_64-linux-gnu/bits/stdlib-float.h \
 /usr/include/c++/12/bits/std_abs.h /usr/include/c++/12/string \
 /usr/include/c++/12/bits/stringfwd.h \
 /usr/include/c++/12/bits/char_traits.h \
 /usr/include/c++/12/bits/postypes.h /usr/include/c++/12/cwchar \
 /usr/include/wchar.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 /usr/include/x86_64-linux-gnu/bits/types/wint_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/mbstate_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__mbstate_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/FILE.h \
 /usr/include/c++/12/bits/localefwd.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++locale.h \
 /usr/include/c++/12/clocale /usr/include/locale.h \
 /usr/include/x86_64-linux-gnu/bits/locale.h /usr/include/c++/12/iosfwd \
 /usr/include/c++/12/cctype /usr/include/ctype.h \
 /usr/include/c++/12/bits/ostream_insert.h \
 /usr/include/c++/12/bits/cxxabi_forced.h \
 /usr/include/c++/12/bits/basic_string.h /usr/include/c++/12/string_view \
 /usr/include/c++/12/bits/string_view.tcc \
 /usr/include/c++/12/ext/string_conversions.h /usr/include/c++/12/cstdio \
 /usr/include/stdio.h /usr/include/x86_64-linux-gnu/bits/types/__fpos_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__fpos64_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/cookie_io_functions_t.h \
 /usr/include/x86_64-linux-gnu/bits/stdio_lim.h \
 /usr/include/c++/12/cerrno /usr/include/errno.h \
 /usr/include/x86_64-linux-gnu/bits/errno.h /usr/include/linux/errno.h \
 /usr/include/x86_64-linux-gnu/asm/errno.h \
 /usr/include/asm-generic/errno.h /usr/include/asm-generic/errno-base.h \
 /usr/include/x86_64-linux-gnu/bits/types/error_t.h \
 /usr/include/c++/12/bits/charconv.h \
 /usr/include/c++/12/bits/basic_string.tcc /work/main/core/time.hpp \
 /usr/include/c++/12/limits /work/main/sim/metrics.hpp \
 /work/main/sim/scenario.hpp /usr/include/c++/12/stdexcept \
 /usr/include/c++/12/exception /usr/include/c++/12/bits/exception_ptr.h \
 /usr/include/c++/12/bits/cxxabi_init_exception.h \
 /usr/include/c++/12/bits/nested_exception.h /usr/include/c++/12/utility \
 /usr/include/c++/12/bits/stl_relops.h /usr/include/c++/12/variant \
 /usr/include/c++/12/bits/parse_numbers.h /work/main/guest/params.hpp \
 /work/main/core/param_row.hpp /work/main/guest/cpuidle.hpp \
 /work/main/guest/sched.hpp /work/main/platform/arch.hpp \
 /work/main/guest/workloads.hpp /usr/include/c++/12/map \
 /usr/include/c++/12/bits/stl_tree.h /usr/include/c++/12/bits/stl_map.h \
 /usr/include/c++/12/bits/stl_multimap.h /work/main/host/kvm_params.hpp \
 /work/main/host/host_sched.hpp /usr/include/c++/12/memory \
 /usr/include/c++/12/bits/stl_raw_storage_iter.h \
 /usr/include/c++/12/bits/align.h /usr/include/c++/12/bit \
 /usr/include/c++/12/bits/unique_ptr.h \
 /usr/include/c++/12/bits/shared_ptr.h \
 /usr/include/c++/12/bits/shared_ptr_base.h \
 /usr/include/c++/12/bits/allocated_ptr.h \
 /usr/include/c++/12/ext/atomicity.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/gthr.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/gthr-default.h \
 /usr/include/pthread.h /usr/include/sched.h \
 /usr/include/x86_64-linux-gnu/bits/sched.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_sched_param.h \
 /usr/include/x86_64-linux-gnu/bits/cpu-set.h /usr/include/time.h \
 /usr/include/x86_64-linux-gnu/bits/time.h \
 /usr/include/x86_64-linux-gnu/bits/timex.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_tm.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_itimerspec.h \
 /usr/include/x86_64-linux-gnu/bits/setjmp.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct___jmp_buf_tag.h \
 /usr/include/x86_64-linux-gnu/bits/pthread_stack_min-dynamic.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/atomic_word.h \
 /usr/include/x86_64-linux-gnu/sys/single_threaded.h \
 /usr/include/c++/12/ext/concurrence.h \
 /usr/include/c++/12/bits/shared_ptr_atomic.h \
 /usr/include/c++/12/bits/atomic_base.h \
 /usr/include/c++/12/bits/atomic_lockfree_defines.h \
 /usr/include/c++/12/backward/auto_ptr.h \
 /usr/include/c++/12/pstl/glue_memory_defs.h \
 /usr/include/c++/12/pstl/execution_defs.h /work/main/core/sg.hpp \
 /usr/include/simgrid/forward.h /usr/include/xbt/base.h \
 /usr/include/boost/intrusive_ptr.hpp \
 /usr/include/boost/smart_ptr/intrusive_ptr.hpp \
 /usr/include/boost/config.hpp /usr/include/boost/config/user.hpp \
 /usr/include/boost/config/detail/select_compiler_config.hpp \
 /usr/include/boost/config/compiler/gcc.hpp /usr/include/c++/12/cstddef \
 /usr/include/boost/config/detail/select_stdlib_config.hpp \
 /usr/include/c++/12/version \
 /usr/include/boost/config/stdlib/libstdcpp3.hpp /usr/include/unistd.h \
 /usr/include/x86_64-linux-gnu/bits/posix_opt.h \
 /usr/include/x86_64-linux-gnu/bits/environments.h \
 /usr/include/x86_64-linux-gnu/bits/confname.h \
 /usr/include/x86_64-linux-gnu/bits/getopt_posix.h \
 /usr/include/x86_64-linux-gnu/bits/getopt_core.h \
 /usr/include/x86_64-linux-gnu/bits/unistd_ext.h \
 /usr/include/linux/close_range.h \
 /usr/include/boost/config/detail/select_platform_config.hpp \
 /usr/include/boost/config/platform/linux.hpp \
 /usr/include/boost/config/detail/posix_features.hpp \
 /usr/include/boost/config/detail/suffix.hpp \
 /usr/include/boost/config/helper_macros.hpp \
 /usr/include/boost/assert.hpp /usr/include/assert.h \
 /usr/include/boost/config/workaround.hpp \
 /usr/include/boost/smart_ptr/detail/sp_convertible.hpp \
 /usr/include/boost/smart_ptr/detail/sp_nullptr_t.hpp \
 /usr/include/boost/smart_ptr/detail/sp_noexcept.hpp \
 /usr/include/boost/config/no_tr1/functional.hpp \
 /usr/include/boost/smart_ptr/detail/operator_bool.hpp \
 /work/main/platform/hw_thread.hpp /work/main/core/state_clock.hpp \
 /work/main/host/host_threads.hpp /usr/include/c++/12/deque \
 /usr/include/c++/12/bits/stl_deque.h /usr/include/c++/12/bits/deque.tcc \
 /work/main/core/rng.hpp /work/main/host/timer_aware.hpp \
 /work/main/platform/shapes.hpp /usr/include/c++/12/algorithm \
 /usr/include/c++/12/pstl/glue_algorithm_defs.h \
 /usr/include/c++/12/chrono /usr/include/c++/12/bits/chrono.h \
 /usr/include/c++/12/ratio /usr/include/c++/12/ctime \
 /usr/include/simgrid/s4u.hpp /usr/include/simgrid/s4u/Activity.hpp \
 /usr/include/c++/12/atomic /usr/include/c++/12/set \
 /usr/include/c++/12/bits/stl_set.h \
 /usr/include/c++/12/bits/stl_multiset.h /usr/include/xbt/Extendable.hpp \
 /usr/include/xbt/asserts.h /usr/include/c++/12/stdlib.h \
 /usr/include/xbt/log.h /usr/include/xbt/signal.hpp \
 /usr/include/xbt/utility.hpp /usr/include/simgrid/s4u/Actor.hpp \
 /usr/include/simgrid/chrono.hpp /usr/include/simgrid/engine.h \
 /usr/include/xbt/string.hpp /usr/include/simgrid/config.h \
 /usr/include/c++/12/cstdarg /usr/include/simgrid/s4u/Barrier.hpp \
 /usr/include/simgrid/barrier.h \
 /usr/include/simgrid/s4u/ConditionVariable.hpp \
 /usr/include/simgrid/s4u/Engine.hpp \
 /usr/include/simgrid/kernel/resource/Model.hpp \
 /usr/include/simgrid/kernel/resource/Action.hpp \
 /usr/include/boost/heap/pairing_heap.hpp \
 /usr/include/boost/heap/detail/heap_comparison.hpp \
 /usr/include/boost/static_assert.hpp \
 /usr/include/boost/detail/workaround.hpp \
 /usr/include/boost/concept/assert.hpp \
 /usr/include/boost/concept/detail/general.hpp \
 /usr/include/boost/preprocessor/cat.hpp \
 /usr/include/boost/preprocessor/config/config.hpp \
 /usr/include/boost/concept/detail/backward_compatibility.hpp \
 /usr/include/boost/concept/detail/has_constraints.hpp \
 /usr/include/boost/type_traits/integral_constant.hpp \
 /usr/include/boost/type_traits/conditional.hpp \
 /usr/include/boost/heap/heap_concepts.hpp \
 /usr/include/boost/concept_check.hpp /usr/include/c++/12/iterator \
 /usr/include/c++/12/bits/stream_iterator.h \
 /usr/include/c++/12/bits/streambuf_iterator.h \
 /usr/include/c++/12/streambuf /usr/include/c++/12/bits/ios_base.h \
 /usr/include/c++/12/bits/locale_classes.h \
 /usr/include/c++/12/bits/locale_classes.tcc \
 /usr/include/c++/12/system_error \
 /usr/include/x86_64-linux-gnu/c++/12/bits/error_constants.h \
 /usr/include/c++/12/bits/streambuf.tcc \
 /usr/include/boost/type_traits/conversion_traits.hpp \
 /usr/include/boost/type_traits/is_convertible.hpp \
 /usr/include/boost/type_traits/intrinsics.hpp \
 /usr/include/boost/type_traits/detail/config.hpp \
 /usr/include/boost/version.hpp \
 /usr/include/boost/type_traits/is_complete.hpp \
 /usr/include/boost/type_traits/declval.hpp \
 /usr/include/boost/type_traits/add_rvalue_reference.hpp \
 /usr/include/boost/type_traits/is_void.hpp \
 /usr/include/boost/type_traits/is_reference.hpp \
 /usr/include/boost/type_traits/is_lvalue_reference.hpp \
 /usr/include/boost/type_traits/is_rvalue_reference.hpp \
 /usr/include/boost/type_traits/remove_reference.hpp \
 /usr/include/boost/type_traits/is_function.hpp \
 /usr/include/boost/type_traits/detail/is_function_cxx_11.hpp \
 /usr/include/boost/type_traits/detail/yes_no_type.hpp \
 /usr/include/boost/type_traits/is_array.hpp \
 /usr/include/boost/type_traits/is_arithmetic.hpp \
 /usr/include/boost/type_traits/is_integral.hpp \
 /usr/include/boost/type_traits/is_floating_point.hpp \
 /usr/include/boost/type_traits/is_abstract.hpp \
 /usr/include/boost/type_traits/add_lvalue_reference.hpp \
 /usr/include/boost/type_traits/add_reference.hpp \
 /usr/include/boost/type_traits/is_same.hpp \
 /usr/include/boost/concept/usage.hpp \
 /usr/include/boost/concept/detail/concept_def.hpp \
 /usr/include/boost/preprocessor/seq/for_each_i.hpp \
 /usr/include/boost/preprocessor/arithmetic/dec.hpp \
 /usr/include/boost/preprocessor/arithmetic/inc.hpp \
 /usr/include/boost/preprocessor/control/if.hpp \
 /usr/include/boost/preprocessor/control/iif.hpp \
 /usr/include/boost/preprocessor/logical/bool.hpp \
 /usr/include/boost/preprocessor/repetition/for.hpp \
 /usr/include/boost/preprocessor/debug/error.hpp \
 /usr/include/boost/preprocessor/facilities/empty.hpp \
 /usr/include/boost/preprocessor/detail/auto_rec.hpp \
 /usr/include/boost/preprocessor/repetition/detail/for.hpp \
 /usr/include/boost/preprocessor/control/expr_iif.hpp \
 /usr/include/boost/preprocessor/tuple/eat.hpp \
 /usr/include/boost/preprocessor/seq/seq.hpp \
 /usr/include/boost/preprocessor/seq/elem.hpp \
 /usr/include/boost/preprocessor/seq/size.hpp \
 /usr/include/boost/preprocessor/seq/detail/is_empty.hpp \
 /usr/include/boost/preprocessor/logical/compl.hpp \
 /usr/include/boost/preprocessor/tuple/elem.hpp \
 /usr/include/boost/preprocessor/facilities/expand.hpp \
 /usr/include/boost/preprocessor/facilities/overload.hpp \
 /usr/include/boost/preprocessor/variadic/size.hpp \
 /usr/include/boost/preprocessor/tuple/rem.hpp \
 /usr/include/boost/preprocessor/tuple/detail/is_single_return.hpp \
 /usr/include/boost/preprocessor/variadic/elem.hpp \
 /usr/include/boost/preprocessor/seq/enum.hpp \
 /usr/include/boost/preprocessor/comma_if.hpp \
 /usr/include/boost/preprocessor/punctuation/comma_if.hpp \
 /usr/include/boost/preprocessor/punctuation/comma.hpp \
 /usr/include/boost/concept/detail/concept_undef.hpp \
 /usr/include/boost/heap/detail/heap_node.hpp \
 /usr/include/boost/core/allocator_access.hpp \
 /usr/include/boost/core/pointer_traits.hpp \
 /usr/include/boost/intrusive/list.hpp \
 /usr/include/boost/intrusive/detail/config_begin.hpp \
 /usr/include/boost/intrusive/intrusive_fwd.hpp \
 /usr/include/boost/cstdint.hpp \
 /usr/include/boost/intrusive/link_mode.hpp \
 /usr/include/boost/intrusive/detail/workaround.hpp \
 /usr/include/boost/intrusive/detail/assert.hpp \
 /usr/include/boost/intrusive/list_hook.hpp \
 /usr/include/boost/intrusive/detail/list_node.hpp \
 /usr/include/boost/intrusive/pointer_rebind.hpp \
 /usr/include/boost/intrusive/circular_list_algorithms.hpp \
 /usr/include/boost/intrusive/detail/algo_type.hpp \
 /usr/include/boost/core/no_exceptions_support.hpp \
 /usr/include/boost/intrusive/detail/config_end.hpp \
 /usr/include/boost/intrusive/options.hpp \
 /usr/include/boost/intrusive/pack_options.hpp \
 /usr/include/boost/intrusive/detail/generic_hook.hpp \
 /usr/include/boost/intrusive/pointer_traits.hpp \
 /usr/include/boost/move/detail/pointer_element.hpp \
 /usr/include/boost/move/detail/workaround.hpp \
 /usr/include/boost/intrusive/detail/mpl.hpp \
 /usr/include/boost/move/detail/type_traits.hpp \
 /usr/include/boost/move/detail/config_begin.hpp \
 /usr/include/boost/move/detail/meta_utils.hpp \
 /usr/include/boost/move/detail/meta_utils_core.hpp \
 /usr/include/boost/move/detail/config_end.hpp \
 /usr/include/boost/intrusive/detail/node_holder.hpp \
 /usr/include/boost/intrusive/detail/get_value_traits.hpp \
 /usr/include/boost/intrusive/detail/hook_traits.hpp \
 /usr/include/boost/intrusive/detail/parent_from_member.hpp \
 /usr/include/boost/move/detail/to_raw_pointer.hpp \
 /usr/include/boost/intrusive/detail/is_stateful_value_traits.hpp \
 /usr/include/boost/intrusive/detail/function_detector.hpp \
 /usr/include/boost/intrusive/detail/default_header_holder.hpp \
 /usr/include/boost/intrusive/detail/reverse_iterator.hpp \
 /usr/include/boost/intrusive/detail/iterator.hpp \
 /usr/include/boost/intrusive/detail/std_fwd.hpp \
 /usr/include/boost/move/detail/std_ns_begin.hpp \
 /usr/include/boost/move/detail/std_ns_end.hpp \
 /usr/include/boost/move/detail/iterator_traits.hpp \
 /usr/include/boost/intrusive/detail/uncast.hpp \
 /usr/include/boost/intrusive/detail/list_iterator.hpp \
 /usr/include/boost/intrusive/detail/iiterator.hpp \
 /usr/include/boost/intrusive/detail/array_initializer.hpp \
 /usr/include/boost/intrusive/detail/exception_disposer.hpp \
 /usr/include/boost/intrusive/detail/equal_to_value.hpp \
 /usr/include/boost/intrusive/detail/key_nodeptr_comp.hpp \
 /usr/include/boost/intrusive/detail/ebo_functor_holder.hpp \
 /usr/include/boost/move/utility_core.hpp \
 /usr/include/boost/move/core.hpp \
 /usr/include/boost/intrusive/detail/tree_value_compare.hpp \
 /usr/include/boost/intrusive/detail/simple_disposers.hpp \
 /usr/include/boost/intrusive/detail/size_holder.hpp \
 /usr/include/boost/intrusive/detail/algorithm.hpp \
 /usr/include/boost/intrusive/detail/minimal_less_equal_header.hpp \
 /usr/include/boost/heap/policies.hpp \
 /usr/include/boost/parameter/name.hpp \
 /usr/include/boost/parameter/aux_/name.hpp \
 /usr/include/boost/mpl/bool.hpp /usr/include/boost/mpl/bool_fwd.hpp \
 /usr/include/boost/mpl/aux_/adl_barrier.hpp \
 /usr/include/boost/mpl/aux_/config/adl.hpp \
 /usr/include/boost/mpl/aux_/config/msvc.hpp \
 /usr/include/boost/mpl/aux_/config/intel.hpp \
 /usr/include/boost/mpl/aux_/config/gcc.hpp \
 /usr/include/boost/mpl/aux_/config/workaround.hpp \
 /usr/include/boost/mpl/integral_c_tag.hpp \
 /usr/include/boost/mpl/aux_/config/static_constant.hpp \
 /usr/include/boost/parameter/value_type.hpp \
 /usr/include/boost/parameter/aux_/void.hpp \
 /usr/include/boost/parameter/config.hpp \
 /usr/include/boost/mpl/limits/vector.hpp \
 /usr/include/boost/mp11/integral.hpp /usr/include/boost/mp11/version.hpp \
 /usr/include/boost/mp11/list.hpp \
 /usr/include/boost/mp11/detail/mp_list.hpp \
 /usr/include/boost/mp11/detail/mp_is_list.hpp \
 /usr/include/boost/mp11/detail/mp_append.hpp \
 /usr/include/boost/mp11/utility.hpp \
 /usr/include/boost/mp11/detail/mp_fold.hpp \
 /usr/include/boost/mp11/detail/config.hpp \
 /usr/include/boost/parameter/aux_/is_placeholder.hpp \
 /usr/include/boost/mpl/arg_fwd.hpp \
 /usr/include/boost/mpl/aux_/nttp_decl.hpp \
 /usr/include/boost/mpl/aux_/config/nttp.hpp \
 /usr/include/boost/mp11/bind.hpp /usr/include/boost/mp11/algorithm.hpp \
 /usr/include/boost/mp11/set.hpp /usr/include/boost/mp11/function.hpp \
 /usr/include/boost/mp11/detail/mp_count.hpp \
 /usr/include/boost/mp11/detail/mp_plus.hpp \
 /usr/include/boost/mp11/detail/mp_min_element.hpp \
 /usr/include/boost/mp11/detail/mp_void.hpp \
 /usr/include/boost/mp11/detail/mp_copy_if.hpp \
 /usr/include/boost/mp11/detail/mp_remove_if.hpp \
 /usr/include/boost/mp11/detail/mp_map_find.hpp \
 /usr/include/boost/mp11/detail/mp_with_index.hpp \
 /usr/include/c++/12/cassert /usr/include/boost/mp11/integer_sequence.hpp \
 /usr/include/boost/parameter/aux_/result_of0.hpp \
 /usr/include/boost/parameter/aux_/use_default_tag.hpp \
 /usr/include/boost/utility/result_of.hpp \
 /usr/include/boost/preprocessor/iteration/iterate.hpp \
 /usr/include/boost/preprocessor/array/elem.hpp \
 /usr/include/boost/preprocessor/array/data.hpp \
 /usr/include/boost/preprocessor/array/size.hpp \
 /usr/include/boost/preprocessor/slot/slot.hpp \
 /usr/include/boost/preprocessor/slot/detail/def.hpp \
 /usr/include/boost/preprocessor/repetition/enum_params.hpp \
 /usr/include/boost/preprocessor/repetition/repeat.hpp \
 /usr/include/boost/preprocessor/repetition/enum_trailing_params.hpp \
 /usr/include/boost/preprocessor/repetition/enum_binary_params.hpp \
 /usr/include/boost/preprocessor/repetition/enum_shifted_params.hpp \
 /usr/include/boost/preprocessor/facilities/intercept.hpp \
 /usr/include/boost/type_traits/is_class.hpp \
 /usr/include/boost/type_traits/is_pointer.hpp \
 /usr/include/boost/type_traits/is_member_function_pointer.hpp \
 /usr/include/boost/type_traits/detail/is_member_function_pointer_cxx_11.hpp \
 /usr/include/boost/type_traits/remove_cv.hpp \
 /usr/include/boost/type_traits/type_identity.hpp \
 /usr/include/boost/core/enable_if.hpp \
 /usr/include/boost/preprocessor/iteration/detail/iter/forward1.hpp \
 /usr/include/boost/preprocessor/iteration/detail/bounds/lower1.hpp \
 /usr/include/boost/preprocessor/slot/detail/shared.hpp \
 /usr/include/boost/preprocessor/iteration/detail/bounds/upper1.hpp \
 /usr/include/boost/utility/detail/result_of_iterate.hpp \
 /usr/include/boost/mpl/placeholders.hpp /usr/include/boost/mpl/arg.hpp \
 /usr/include/boost/mpl/aux_/na.hpp \
 /usr/include/boost/mpl/aux_/na_fwd.hpp \
 /usr/include/boost/mpl/aux_/config/ctps.hpp \
 /usr/include/boost/mpl/aux_/na_assert.hpp \
 /usr/include/boost/mpl/assert.hpp /usr/include/boost/mpl/not.hpp \
 /usr/include/boost/mpl/aux_/nested_type_wknd.hpp \
 /usr/include/boost/mpl/aux_/na_spec.hpp \
 /usr/include/boost/mpl/lambda_fwd.hpp \
 /usr/include/boost/mpl/void_fwd.hpp \
 /usr/include/boost/mpl/aux_/config/lambda.hpp \
 /usr/include/boost/mpl/aux_/config/ttp.hpp \
 /usr/include/boost/mpl/int.hpp /usr/include/boost/mpl/int_fwd.hpp \
 /usr/include/boost/mpl/aux_/integral_wrapper.hpp \
 /usr/include/boost/mpl/aux_/static_cast.hpp \
 /usr/include/boost/mpl/aux_/lambda_arity_param.hpp \
 /usr/include/boost/mpl/aux_/template_arity_fwd.hpp \
 /usr/include/boost/mpl/aux_/arity.hpp \
 /usr/include/boost/mpl/aux_/config/dtp.hpp \
 /usr/include/boost/mpl/aux_/preprocessor/params.hpp \
 /usr/include/boost/mpl/aux_/config/preprocessor.hpp \
 /usr/include/boost/preprocessor/repeat.hpp \
 /usr/include/boost/preprocessor/inc.hpp \
 /usr/include/boost/mpl/aux_/preprocessor/enum.hpp \
 /usr/include/boost/mpl/aux_/preprocessor/def_params_tail.hpp \
 /usr/include/boost/mpl/limits/arity.hpp \
 /usr/include/boost/preprocessor/logical/and.hpp \
 /usr/include/boost/preprocessor/logical/bitand.hpp \
 /usr/include/boost/preprocessor/identity.hpp \
 /usr/include/boost/preprocessor/facilities/identity.hpp \
 /usr/include/boost/preprocessor/empty.hpp \
 /usr/include/boost/preprocessor/arithmetic/add.hpp \
 /usr/include/boost/preprocessor/control/while.hpp \
 /usr/include/boost/preprocessor/list/fold_left.hpp \
 /usr/include/boost/preprocessor/list/detail/fold_left.hpp \
 /usr/include/boost/preprocessor/list/adt.hpp \
 /usr/include/boost/preprocessor/detail/is_binary.hpp \
 /usr/include/boost/preprocessor/detail/check.hpp \
 /usr/include/boost/preprocessor/list/fold_right.hpp \
 /usr/include/boost/preprocessor/list/detail/fold_right.hpp \
 /usr/include/boost/preprocessor/list/reverse.hpp \
 /usr/include/boost/preprocessor/control/detail/while.hpp \
 /usr/include/boost/preprocessor/arithmetic/sub.hpp \
 /usr/include/boost/mpl/aux_/config/eti.hpp \
 /usr/include/boost/mpl/aux_/config/overload_resolution.hpp \
 /usr/include/boost/mpl/aux_/lambda_support.hpp \
 /usr/include/boost/mpl/aux_/value_wknd.hpp \
 /usr/include/boost/mpl/aux_/config/integral.hpp \
 /usr/include/boost/mpl/aux_/yes_no.hpp \
 /usr/include/boost/mpl/aux_/config/arrays.hpp \
 /usr/include/boost/mpl/aux_/config/gpu.hpp \
 /usr/include/boost/mpl/aux_/config/pp_counter.hpp \
 /usr/include/boost/mpl/aux_/arity_spec.hpp \
 /usr/include/boost/mpl/aux_/arg_typedef.hpp \
 /usr/include/boost/mpl/aux_/config/use_preprocessed.hpp \
 /usr/include/boost/mpl/aux_/include_preprocessed.hpp \
 /usr/include/boost/mpl/aux_/config/compiler.hpp \
 /usr/include/boost/preprocessor/stringize.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/arg.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/placeholders.hpp \
 /usr/include/boost/parameter/aux_/lambda_tag.hpp \
 /usr/include/boost/mpl/lambda.hpp /usr/include/boost/mpl/bind.hpp \
 /usr/include/boost/mpl/bind_fwd.hpp \
 /usr/include/boost/mpl/aux_/config/bind.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/bind_fwd.hpp \
 /usr/include/boost/mpl/next.hpp /usr/include/boost/mpl/next_prior.hpp \
 /usr/include/boost/mpl/aux_/common_name_wknd.hpp \
 /usr/include/boost/mpl/protect.hpp /usr/include/boost/mpl/apply_wrap.hpp \
 /usr/include/boost/mpl/aux_/has_apply.hpp \
 /usr/include/boost/mpl/has_xxx.hpp \
 /usr/include/boost/mpl/aux_/type_wrapper.hpp \
 /usr/include/boost/mpl/aux_/config/has_xxx.hpp \
 /usr/include/boost/mpl/aux_/config/msvc_typename.hpp \
 /usr/include/boost/mpl/aux_/config/has_apply.hpp \
 /usr/include/boost/mpl/aux_/msvc_never_true.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/apply_wrap.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/bind.hpp \
 /usr/include/boost/mpl/aux_/full_lambda.hpp \
 /usr/include/boost/mpl/quote.hpp /usr/include/boost/mpl/void.hpp \
 /usr/include/boost/mpl/aux_/has_type.hpp \
 /usr/include/boost/mpl/aux_/config/bcc.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/quote.hpp \
 /usr/include/boost/mpl/aux_/template_arity.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/template_arity.hpp \
 /usr/include/boost/mpl/if.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/full_lambda.hpp \
 /usr/include/boost/parameter/binding.hpp \
 /usr/include/boost/parameter/keyword.hpp \
 /usr/include/boost/parameter/aux_/tag.hpp \
 /usr/include/boost/parameter/aux_/unwrap_cv_reference.hpp \
 /usr/include/boost/parameter/aux_/yesno.hpp \
 /usr/include/boost/parameter/aux_/preprocessor/nullptr.hpp \
 /usr/include/boost/parameter/aux_/tagged_argument.hpp \
 /usr/include/boost/parameter/keyword_fwd.hpp \
 /usr/include/boost/mpl/eval_if.hpp \
 /usr/include/boost/type_traits/remove_const.hpp \
 /usr/include/boost/parameter/aux_/tagged_argument_fwd.hpp \
 /usr/include/boost/parameter/aux_/is_tagged_argument.hpp \
 /usr/include/boost/type_traits/is_base_of.hpp \
 /usr/include/boost/type_traits/is_base_and_derived.hpp \
 /usr/include/boost/parameter/aux_/default.hpp \
 /usr/include/boost/parameter/aux_/arg_list.hpp \
 /usr/include/boost/parameter/aux_/is_maybe.hpp \
 /usr/include/boost/parameter/aux_/parameter_requirements.hpp \
 /usr/include/boost/parameter/aux_/pack/parameter_requirements.hpp \
 /usr/include/boost/parameter/aux_/augment_predicate.hpp \
 /usr/include/boost/type_traits/is_scalar.hpp \
 /usr/include/boost/type_traits/is_enum.hpp \
 /usr/include/boost/type_traits/is_member_pointer.hpp \
 /usr/include/boost/type_traits/is_const.hpp \
 /usr/include/boost/parameter/aux_/has_nested_template_fn.hpp \
 /usr/include/boost/mpl/iterator_tags.hpp \
 /usr/include/boost/mpl/begin_end_fwd.hpp \
 /usr/include/boost/mpl/has_key_fwd.hpp \
 /usr/include/boost/mpl/count_fwd.hpp \
 /usr/include/boost/mpl/key_type_fwd.hpp \
 /usr/include/boost/mpl/identity.hpp \
 /usr/include/boost/mpl/value_type_fwd.hpp \
 /usr/include/boost/mpl/at_fwd.hpp /usr/include/boost/mpl/order_fwd.hpp \
 /usr/include/boost/mpl/find.hpp /usr/include/boost/mpl/find_if.hpp \
 /usr/include/boost/mpl/aux_/find_if_pred.hpp \
 /usr/include/boost/mpl/aux_/iter_apply.hpp \
 /usr/include/boost/mpl/apply.hpp /usr/include/boost/mpl/apply_fwd.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/apply_fwd.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/apply.hpp \
 /usr/include/boost/mpl/deref.hpp \
 /usr/include/boost/mpl/aux_/msvc_type.hpp \
 /usr/include/boost/mpl/aux_/is_msvc_eti_arg.hpp \
 /usr/include/boost/mpl/iter_fold_if.hpp \
 /usr/include/boost/mpl/begin_end.hpp \
 /usr/include/boost/mpl/aux_/begin_end_impl.hpp \
 /usr/include/boost/mpl/sequence_tag_fwd.hpp \
 /usr/include/boost/mpl/aux_/has_begin.hpp \
 /usr/include/boost/mpl/aux_/traits_lambda_spec.hpp \
 /usr/include/boost/mpl/sequence_tag.hpp \
 /usr/include/boost/mpl/aux_/has_tag.hpp \
 /usr/include/boost/mpl/logical.hpp /usr/include/boost/mpl/or.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/or.hpp \
 /usr/include/boost/mpl/and.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/and.hpp \
 /usr/include/boost/mpl/always.hpp \
 /usr/include/boost/mpl/aux_/preprocessor/default_params.hpp \
 /usr/include/boost/mpl/pair.hpp \
 /usr/include/boost/mpl/aux_/msvc_eti_base.hpp \
 /usr/include/boost/mpl/aux_/iter_fold_if_impl.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/iter_fold_if_impl.hpp \
 /usr/include/boost/mpl/aux_/config/forwarding.hpp \
 /usr/include/boost/mpl/same_as.hpp \
 /usr/include/boost/mpl/aux_/lambda_spec.hpp \
 /usr/include/boost/mpl/distance.hpp \
 /usr/include/boost/mpl/distance_fwd.hpp \
 /usr/include/boost/mpl/iter_fold.hpp /usr/include/boost/mpl/O1_size.hpp \
 /usr/include/boost/mpl/O1_size_fwd.hpp \
 /usr/include/boost/mpl/aux_/O1_size_impl.hpp \
 /usr/include/boost/mpl/long.hpp /usr/include/boost/mpl/long_fwd.hpp \
 /usr/include/boost/mpl/aux_/has_size.hpp \
 /usr/include/boost/mpl/aux_/iter_fold_impl.hpp \
 /usr/include/boost/mpl/aux_/preprocessed/gcc/iter_fold_impl.hpp \
 /usr/include/boost/mpl/iterator_range.hpp /usr/include/boost/mpl/tag.hpp \
 /usr/include/boost/parameter/aux_/preprocessor/qualifier.hpp \
 /usr/include/boost/preprocessor/facilities/is_empty.hpp \
 /usr/include/boost/preprocessor/facilities/is_empty_variadic.hpp \
 /usr/include/boost/preprocessor/punctuation/is_begin_parens.hpp \
 /usr/include/boost/preprocessor/punctuation/detail/is_begin_parens.hpp \
 /usr/include/boost/preprocessor/facilities/detail/is_empty.hpp \
 /usr/include/boost/parameter/aux_/preprocessor/is_binary.hpp \
 /usr/include/boost/parameter/template_keyword.hpp \
 /usr/include/boost/parameter/aux_/template_keyword.hpp \
 /usr/include/boost/parameter/parameters.hpp \
 /usr/include/boost/parameter/aux_/pack/make_arg_list.hpp \
 /usr/include/boost/parameter/aux_/pack/unmatched_argument.hpp \
 /usr/include/boost/parameter/aux_/pack/tag_type.hpp \
 /usr/include/boost/parameter/deduced.hpp \
 /usr/include/boost/parameter/aux_/use_default.hpp \
 /usr/include/boost/parameter/required.hpp \
 /usr/include/boost/parameter/optional.hpp \
 /usr/include/boost/parameter/aux_/pack/is_named_argument.hpp \
 /usr/include/boost/parameter/aux_/pack/insert_tagged.hpp \
 /usr/include/boost/parameter/aux_/set.hpp \
 /usr/include/boost/parameter/aux_/pack/deduce_tag.hpp \
 /usr/include/boost/parameter/aux_/pack/tag_deduced.hpp \
 /usr/include/boost/parameter/aux_/pack/make_parameter_spec_items.hpp \
 /usr/include/boost/parameter/aux_/pack/make_deduced_items.hpp \
 /usr/include/boost/parameter/aux_/pack/deduced_item.hpp \
 /usr/include/boost/parameter/aux_/pack/satisfies.hpp \
 /usr/include/boost/parameter/aux_/pack/as_parameter_requirements.hpp \
 /usr/include/boost/parameter/aux_/pack/predicate.hpp \
 /usr/include/boost/parameter/aux_/always_true_predicate.hpp \
 /usr/include/boost/parameter/aux_/pack/make_items.hpp \
 /usr/include/boost/parameter/aux_/pack/item.hpp \
 /usr/include/boost/parameter/aux_/pack/tag_keyword_arg.hpp \
 /usr/include/boost/parameter/aux_/pack/tag_template_keyword_arg.hpp \
 /usr/include/boost/heap/detail/stable_heap.hpp \
 /usr/include/boost/throw_exception.hpp \
 /usr/include/boost/assert/source_location.hpp \
 /usr/include/boost/current_function.hpp \
 /usr/include/boost/exception/exception.hpp \
 /usr/include/boost/iterator/iterator_adaptor.hpp \
 /usr/include/boost/core/use_default.hpp \
 /usr/include/boost/iterator/iterator_categories.hpp \
 /usr/include/boost/iterator/detail/config_def.hpp \
 /usr/include/boost/iterator/detail/config_undef.hpp \
 /usr/include/boost/iterator/iterator_facade.hpp \
 /usr/include/boost/iterator/interoperable.hpp \
 /usr/include/boost/iterator/iterator_traits.hpp \
 /usr/include/boost/iterator/detail/facade_iterator_category.hpp \
 /usr/include/boost/detail/indirect_traits.hpp \
 /usr/include/boost/type_traits/is_volatile.hpp \
 /usr/include/boost/type_traits/remove_pointer.hpp \
 /usr/include/boost/detail/select_type.hpp \
 /usr/include/boost/iterator/detail/enable_if.hpp \
 /usr/include/boost/core/addressof.hpp \
 /usr/include/boost/type_traits/add_const.hpp \
 /usr/include/boost/type_traits/add_pointer.hpp \
 /usr/include/boost/type_traits/is_pod.hpp \
 /usr/include/boost/heap/heap_merge.hpp \
 /usr/include/boost/type_traits/is_nothrow_move_constructible.hpp \
 /usr/include/boost/type_traits/enable_if.hpp \
 /usr/include/boost/type_traits/is_nothrow_move_assignable.hpp \
 /usr/include/boost/type_traits/has_trivial_move_assign.hpp \
 /usr/include/boost/type_traits/is_assignable.hpp \
 /usr/include/boost/type_traits/has_nothrow_assign.hpp \
 /usr/include/boost/heap/detail/tree_iterator.hpp \
 /usr/include/c++/12/queue /usr/include/c++/12/bits/stl_queue.h \
 /usr/include/boost/optional.hpp /usr/include/boost/optional/optional.hpp \
 /usr/include/boost/core/explicit_operator_bool.hpp \
 /usr/include/boost/core/swap.hpp \
 /usr/include/boost/optional/bad_optional_access.hpp \
 /usr/include/boost/type.hpp \
 /usr/include/boost/type_traits/alignment_of.hpp \
 /usr/include/boost/type_traits/has_nothrow_constructor.hpp \
 /usr/include/boost/type_traits/is_default_constructible.hpp \
 /usr/include/boost/type_traits/type_with_alignment.hpp \
 /usr/include/boost/type_traits/decay.hpp \
 /usr/include/boost/type_traits/remove_bounds.hpp \
 /usr/include/boost/type_traits/remove_extent.hpp \
 /usr/include/boost/type_traits/is_constructible.hpp \
 /usr/include/boost/type_traits/is_destructible.hpp \
 /usr/include/boost/move/utility.hpp /usr/include/boost/move/traits.hpp \
 /usr/include/boost/none.hpp /usr/include/boost/none_t.hpp \
 /usr/include/boost/utility/compare_pointees.hpp \
 /usr/include/boost/optional/optional_fwd.hpp \
 /usr/include/boost/optional/detail/optional_config.hpp \
 /usr/include/boost/optional/detail/optional_factory_support.hpp \
 /usr/include/boost/optional/detail/optional_aligned_storage.hpp \
 /usr/include/boost/optional/detail/optional_trivially_copyable_base.hpp \
 /usr/include/boost/optional/detail/optional_reference_spec.hpp \
 /usr/include/boost/optional/detail/optional_relops.hpp \
 /usr/include/boost/optional/detail/optional_swap.hpp \
 /usr/include/simgrid/s4u/NetZone.hpp /usr/include/simgrid/s4u/Link.hpp \
 /usr/include/simgrid/link.h /usr/include/xbt/graph.h \
 /usr/include/xbt/dynar.h /usr/include/string.h /usr/include/strings.h \
 /usr/include/xbt/function_types.h /usr/include/xbt/misc.h \
 /usr/include/simgrid/s4u/Mutex.hpp /usr/include/c++/12/future \
 /usr/include/c++/12/mutex /usr/include/c++/12/bits/std_mutex.h \
 /usr/include/c++/12/bits/unique_lock.h \
 /usr/include/c++/12/condition_variable \
 /usr/include/c++/12/bits/atomic_futex.h \
 /usr/include/c++/12/bits/std_thread.h /usr/include/simgrid/s4u/Comm.hpp \
 /usr/include/simgrid/s4u/Disk.hpp /usr/include/simgrid/disk.h \
 /usr/include/simgrid/s4u/Io.hpp /usr/include/simgrid/s4u/Exec.hpp \
 /usr/include/xbt/ex.h /usr/include/xbt/sysdep.h /usr/include/xbt/virtu.h \
 /usr/include/simgrid/s4u/Host.hpp /usr/include/simgrid/s4u/Mailbox.hpp \
 /usr/include/smpi/forward.hpp /usr/include/simgrid/s4u/Semaphore.hpp \
 /usr/include/simgrid/s4u/VirtualMachine.hpp \
 /usr/include/simgrid/Exception.hpp /usr/include/xbt/backtrace.hpp \
 /work/main/core/trace.hpp /work/main/guest/kernel.hpp \
 /work/main/guest/cputime.hpp /work/main/guest/hrtimer.hpp \
 /work/main/guest/timer_wheel.hpp /work/main/guest/task.hpp \
 /work/main/guest/tick_policy.hpp /work/main/guest/tick_sched.hpp \
 /work/main/platform/vhw.hpp /work/main/host/kvm.hpp \
 /work/main/host/kvm_vcpu.hpp /work/main/host/kvm_halt.hpp \
 /work/main/platform/sg_platform.hpp /work/main/platform/topology.hpp \
 /work/main/sim/stats.hpp
